// The `flipbook` command's entry point. The API key may be on the command line (--api-key): hide it
// from `ps` and /proc/<pid>/cmdline by replacing the process title first, before the program and
// its dependencies load (static imports would all load before this line ran, about a second).
process.title = 'flipbook';
await import('./program.ts');
