// A preview's address, /p/<token>: its version's id signed with the installation's secret
// (./signedFields.ts), so it is unguessable without a table of tokens, the same however often it
// is asked for (the pull request's comment keeps one link), and dead once its preview is gone.
import { signedFields } from './signedFields.ts';

export type PreviewLinks = {
  tokenOf: (versionId: string) => string;
  /** The version a token names, or null for a text not signed here as a preview's. */
  versionOf: (token: string) => string | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const previewLinksSignedWith = (secret: string): PreviewLinks => {
  const signer = signedFields(secret);
  return {
    tokenOf: (versionId) => signer.sign(['p', versionId]),
    versionOf: (token) => {
      const fields = signer.open(token, 80);
      return fields?.length === 2 && fields[0] === 'p' && UUID.test(fields[1] ?? '')
        ? (fields[1] ?? null)
        : null;
    },
  };
};
