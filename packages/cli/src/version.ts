// The client's version is the server's: a server serves the client of its own version
// (GET /downloads/flipbook-cli.tgz), and packages/cli/package.json says the same (a unit test
// holds them together). Bundled, the number is inlined.
import project from '../../../package.json' with { type: 'json' };

export const CLIENT_VERSION: string = project.version;
