import { InterludeError } from "@interlude/core";

/** The config file or a graph it names cannot be used. */
export class ConfigError extends InterludeError {
  constructor(message: string) {
    super("CONFIG_INVALID", message);
  }
}
