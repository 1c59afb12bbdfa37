/** Each error carries its code, HTTP status and details; the server answers with them as they are. */
import {
  AmbiguousResumeError,
  ERROR_STATUS,
  GraphRecursionError,
  InvalidResumeError,
  NothingToResumeError,
  ThreadBusyError,
} from "@interlude/core";
import { describe, expect, it } from "vitest";
import { ThreadRunningError } from "../dist/errors.js";
import { errorResponse } from "../dist/http/status.js";

describe("error codes and their HTTP meaning", () => {
  it("a thread running a task (multitask reject) and a thread claimed in storage are two codes", () => {
    const running = errorResponse(new ThreadRunningError("t1"));
    const claimed = errorResponse(new ThreadBusyError("t1"));
    expect(running).toMatchObject({ status: 409, body: { code: "THREAD_RUNNING", thread_id: "t1" } });
    expect(claimed).toMatchObject({ status: 409, body: { code: "THREAD_BUSY", thread_id: "t1" } });
  });

  it("a refused answer's body carries the error's own details, in snake case", () => {
    const pending = [{ id: "a", value: 1 }];
    expect(errorResponse(new AmbiguousResumeError(pending))).toMatchObject({
      status: 400,
      body: { error: "ambiguous_resume", code: "AMBIGUOUS_RESUME", pending },
    });
    expect(errorResponse(new InvalidResumeError("i1", [{ message: "no" }]))).toMatchObject({
      status: 422,
      body: { interrupt_id: "i1", issues: [{ message: "no" }] },
    });
    expect(errorResponse(new NothingToResumeError("t1", "finished")).body).toMatchObject({ reason: "finished" });
  });

  it("a failure that is not the caller's is a 500 that shows no details", () => {
    const error = new GraphRecursionError(25);
    expect(ERROR_STATUS[error.code]).toBeNull();
    expect(errorResponse(error)).toEqual({
      status: 500,
      body: { error: "internal", code: "INTERNAL", message: expect.stringMatching(/server log/) },
    });
  });
});
