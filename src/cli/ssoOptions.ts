// `serve`'s single sign-on flags (docs/dashboard.md, "Single sign-on"). The client secret comes
// from the environment, never a flag: a flag is seen by anyone who lists the machine's processes.
import { domainToASCII } from 'node:url';
import type { Command } from 'commander';
import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';
import { isLoopbackUrl } from '../app/accounts/loopbackUrl.ts';
import type { SsoSettings } from '../app/accounts/sso.ts';

export const SECRET_ENV = 'FLIPBOOK_OIDC_CLIENT_SECRET';

export type SsoFlags = {
  oidcIssuer?: string;
  oidcClientId?: string;
  oidcName?: string;
  oidcDomain?: string[];
  oidcJoin?: string[];
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const withSsoOptions = (command: Command) =>
  command
    .option('--oidc-issuer <url>', 'sign in to the dashboard with this OpenID Connect provider')
    .option('--oidc-client-id <id>', `the client id at the provider (its secret: $${SECRET_ENV})`)
    .option('--oidc-name <name>', 'what the sign-in button calls the provider', 'single sign-on')
    .option(
      '--oidc-domain <domain>',
      'an email domain the provider signs in for (repeatable; at least one, or --oidc-join)',
      collect,
    )
    .option(
      '--oidc-join <domain=workspace>',
      'people with a verified email of the domain join the workspace as members (repeatable)',
      collect,
    );

const usage = (message: string) => new CliError(EXIT.usage, message);

const DOMAIN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** The settings the flags and the environment name, or none when no provider is set. */
export const ssoSettingsOf = (
  flags: SsoFlags,
  env: Record<string, string | undefined>,
): SsoSettings | undefined => {
  const joins = flags.oidcJoin ?? [];
  const domains = flags.oidcDomain ?? [];
  if (!flags.oidcIssuer) {
    if (flags.oidcClientId || joins.length > 0 || domains.length > 0) {
      throw usage('--oidc-client-id, --oidc-domain and --oidc-join need --oidc-issuer');
    }
    return undefined;
  }
  let issuer: URL;
  try {
    issuer = new URL(flags.oidcIssuer);
  } catch {
    throw usage(`--oidc-issuer must be a URL, got "${flags.oidcIssuer}"`);
  }
  if (
    !(issuer.protocol === 'https:' || (issuer.protocol === 'http:' && isLoopbackUrl(issuer))) ||
    issuer.search ||
    issuer.hash ||
    issuer.username
  ) {
    throw usage(
      `--oidc-issuer must be an https URL without a query (http only on this machine), got "${flags.oidcIssuer}"`,
    );
  }
  if (!flags.oidcClientId) throw usage('--oidc-issuer needs --oidc-client-id');
  const clientSecret = env[SECRET_ENV];
  if (!clientSecret) throw usage(`--oidc-issuer needs the client secret in $${SECRET_ENV}`);
  const name = (flags.oidcName ?? 'single sign-on').trim();
  if (!name || name.length > 60) throw usage('--oidc-name must be 1 to 60 characters');
  const byDomain = new Map<string, string>();
  for (const join of joins) {
    const eq = join.indexOf('=');
    const domain = domainToASCII(join.slice(0, eq).trim().toLowerCase());
    const workspace = join.slice(eq + 1).trim();
    if (eq < 1 || !DOMAIN.test(domain) || !workspace) {
      throw usage(`--oidc-join must be <domain>=<workspace>, like example.com=acme, got "${join}"`);
    }
    if (byDomain.has(domain)) throw usage(`--oidc-join names ${domain} twice`);
    byDomain.set(domain, workspace);
  }
  const allowed = new Set(byDomain.keys());
  for (const raw of domains) {
    const domain = domainToASCII(raw.trim().toLowerCase());
    if (!DOMAIN.test(domain)) throw usage(`--oidc-domain must be a domain, got "${raw}"`);
    allowed.add(domain);
  }
  // A provider vouches for any email its users may hold (Google accounts, Entra's "common"
  // tenant, social logins): only the domains the operator names are taken from it.
  if (allowed.size === 0) {
    throw usage(
      '--oidc-issuer needs at least one --oidc-domain (or --oidc-join): the email domains it signs in for',
    );
  }
  return {
    issuer: flags.oidcIssuer,
    clientId: flags.oidcClientId,
    clientSecret,
    name,
    domains: allowed,
    joins: byDomain,
  };
};
