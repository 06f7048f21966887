// polka's paths as regular expressions: the server's 405s and metrics, the endpoints' mounting.

/**
 * A matcher for a polka path (`:name` one segment, `*` the rest, a trailing slash allowed, as
 * polka does).
 */
export const pathPattern = (path: string) =>
  new RegExp(
    `^${path
      .replace(/\/$/, '')
      .split('/')
      .map((part) =>
        part === '*'
          ? '.*'
          : part.startsWith(':')
            ? '[^/]+'
            : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/')}/?$`,
  );
