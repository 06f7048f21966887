// s3rver ships no types; what the tests use of it.
declare module 's3rver' {
  export default class S3rver {
    constructor(options: {
      address?: string;
      port?: number;
      silent?: boolean;
      directory?: string;
    });
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
