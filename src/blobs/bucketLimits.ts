// The bounds on every use of a bucket (S3-compatible object store), as the database has its own
// (src/store/limits.ts): apart from the client, so the command line reads --s3-timeout without
// loading the AWS SDK. Applied by ./boundedAgent.ts (connections) and ./boundedSend.ts (requests,
// retries, budgets); the table in docs/deploy.md ("A bucket that stalls") lists them.

export type BucketLimits = {
  /** opening a connection (TCP, and TLS for https), once a request has one to open */
  connectMs: number;
  /** connections open to the bucket at once; a request beyond them waits for one to be free */
  maxSockets: number;
  /**
   * waiting for one of those connections: its own bound, never counted as connecting (a slow
   * bucket's full pool is not an unreachable bucket)
   */
  socketWaitMs: number;
  /**
   * silence while an attempt is under way: no byte sent or received for this long, from its
   * connection being ready (sending the request, waiting for the answer, reading a body the
   * service is ready to take), and the attempt fails
   */
  silenceMs: number;
  /** one operation with its retries and the pauses between them; a request's operations together */
  budgetMs: number;
  /** attempts of one operation at most (within its budget) */
  attempts: number;
  /**
   * while an upload's body is still coming, the bucket is asked whether it answers this often
   * (one question at a time for all the process's uploads): a bucket that stops answering
   * before a part is ready to send fails the upload within this + `budgetMs`
   */
  heartbeatMs: number;
};

/** `--s3-timeout`, in seconds, unless told. */
export const DEFAULT_BUCKET_TIMEOUT_S = 5;

/**
 * The bounds for `--s3-timeout N`: N for each of connect, socket wait and silence; 1.6 N
 * (8 s by default) for an operation with its retries, and for a request's operations together, so
 * a request the bucket cannot serve is a 503 within the 10 s the service promises; an upload
 * whose bucket stops answering mid-body hears of it within 0.2 N + 1.6 N (9 s by default).
 */
export const bucketLimits = (timeoutSeconds = DEFAULT_BUCKET_TIMEOUT_S): BucketLimits => ({
  connectMs: timeoutSeconds * 1000,
  maxSockets: 100,
  socketWaitMs: timeoutSeconds * 1000,
  silenceMs: timeoutSeconds * 1000,
  budgetMs: Math.round(timeoutSeconds * 1600),
  attempts: 8,
  heartbeatMs: timeoutSeconds * 200,
});
