/** Types of postgres.mjs (plain JavaScript: the benchmark imports it too). */
export declare function freePort(): Promise<number>;
export declare function giveToPostgres(...paths: string[]): boolean;
export declare function startPostgres(): Promise<{ url: string; stop(): void }>;
