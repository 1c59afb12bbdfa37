export { RedisSaver, type RedisSaverOptions } from "./saver.js";
