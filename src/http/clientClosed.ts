// A request's client closed its connection before the body was read: no one to answer, and
// nothing wrong with the service (./server.ts's clientGone says so, and it is not logged as a
// failure).
export class ClientClosed extends Error {
  override name = 'ClientClosed';
  constructor() {
    super('the client closed the connection');
  }
}
