// `--blob-url s3://BUCKET[/PREFIX]` read and checked: apart from the S3 store, so the command
// line can check the flag without loading the AWS SDK.
export const parseS3Url = (url: string) => {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`not an s3://bucket[/prefix] URL: ${url}`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && !/^[A-Za-z0-9._/-]+$/.test(prefix)) {
    throw new Error(`the prefix may hold letters, digits, '.', '_', '-' and '/': ${url}`);
  }
  // Keys with `.`, `..` or empty segments are read differently by different stores.
  if (prefix && prefix.split('/').some((segment) => segment === '' || /^\.+$/.test(segment))) {
    throw new Error(`the prefix may not hold empty, '.' or '..' segments: ${url}`);
  }
  return { bucket: match[1] as string, prefix: prefix ? `${prefix}/` : '' };
};
