import { InterludeError } from "./base.js";

/**
 * An option or call shape of LangGraph that Interlude does not implement. Refused rather than
 * accepted and ignored, so a graph never silently runs differently from what its code says.
 */
export class UnsupportedFeatureError extends InterludeError {
  /** The option or call, e.g. `addNode({ defer })`. */
  readonly feature: string;
  constructor(feature: string, advice: string) {
    super("UNSUPPORTED_FEATURE", `${feature} is not supported by Interlude. ${advice}`);
    this.feature = feature;
  }
}
