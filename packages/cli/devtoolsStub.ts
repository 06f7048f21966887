// Stands in for react-devtools-core, which ink imports only when DEV=true: the client package
// ships without it (packages/cli/build.ts).
export default { initialize: () => {}, connectToDevTools: () => {} };
