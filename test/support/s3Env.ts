/** s3rver's fixed credentials: every child process gets them, as the AWS SDK reads them. */
export const S3_ENV = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_REGION: 'us-east-1',
};
