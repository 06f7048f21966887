export const openApiDocument = { openapi: '3.1.0' };
