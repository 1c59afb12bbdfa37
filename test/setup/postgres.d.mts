/** Types of postgres.mjs (plain JavaScript: the benchmark imports it too). */
export declare function freePort(): Promise<number>;
export declare function giveToPostgres(...paths: string[]): boolean;
export declare function startPostgres(options?: {
  statements?: boolean;
  durable?: boolean;
  ssl?: boolean;
}): Promise<{ url: string; caFile?: string; crashAndRestart(): void; stop(): void }>;
