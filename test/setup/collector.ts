/** The garbage collector, for tests that run it while something waits on a timer. */
import v8 from "node:v8";
import vm from "node:vm";

/** The collector, callable in this worker: `--expose-gc`, turned on at run time (test workers start without it). */
export function collector(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}
