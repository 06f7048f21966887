// A flipbook's Activity: its audit trail (docs/audit.md) in words, newest first, paged. Who did
// it (a person by email, an API key by its label, an admin, the processing worker), what, when
// and from where (the address and browser the event recorded).

import type { LoggedEvent } from '../../app/eventLog.ts';
import type { Activity } from '../../app/flipbookOverview.ts';
import { html } from '../../http/html.ts';
import { bytes, pages as pageCount, at as time } from './format.ts';
import { pager } from './pager.ts';

export const ACTIVITY_PER_PAGE = 20;

export const activitySection = (base: string, activity: Activity) => {
  const link = (page: number) => `${base}?activity=${page}#activity`;
  return html`<section class="panel" id="activity" aria-labelledby="activity-title">
<h2 id="activity-title">Activity</h2>
<ol class="activity">
${activity.events.map(
  (event) => html`<li>
<p class="what">${sentence(event, activity)}</p>
<p class="when">${time(event.at)}${where(event)}</p>
</li>`,
)}
</ol>
${pager('activity', activity, link, { prev: 'Newer', next: 'Older' })}
</section>`;
};

/** Who, as a person reads it. */
export const actorWords = (actor: LoggedEvent['metadata']['actor']) => {
  switch (actor.type) {
    case 'user':
      return actor.email;
    case 'api_key':
      return `API key ${actor.name ?? actor.id.slice(0, 8)}`;
    case 'admin':
      return `Admin ${actor.id}`;
    case 'worker':
      return `Processing (${actor.id})`;
    case 'system':
      return 'The service';
    default:
      return 'Someone (recorded before the audit trail)';
  }
};

const sentence = (
  event: LoggedEvent,
  { numbers, labels }: Pick<Activity, 'numbers' | 'labels'>,
) => {
  const d = event.data;
  const link = () => {
    const label = labels.get(String(d.linkId));
    return label === undefined ? 'a share link' : `the share link “${label}”`;
  };
  const version = () => {
    const n = numbers.get(String(d.versionId));
    return n === undefined ? 'a version' : `version ${n}`;
  };
  const what = (() => {
    switch (event.type) {
      case 'FlipbookCreated':
        return `created the flipbook “${String(d.title)}”`;
      case 'FlipbookEdited':
        return editWords(d);
      case 'FlipbookArchived':
        return 'archived the flipbook';
      case 'FlipbookRestored':
        return 'unarchived the flipbook';
      case 'FlipbookDeleted':
        return 'deleted the flipbook';
      case 'FlipbookDownloadChanged':
        return d.allowed ? 'allowed downloads' : 'turned downloads off';
      case 'VersionUploaded': {
        const file = d.file as { name?: string; size?: number } | undefined;
        return `uploaded version ${String(d.number)} (${file?.name ?? 'a PDF'}, ${bytes(Number(file?.size ?? 0))})${
          Number(d.number) > 1 && d.activateOnDone === false ? ', to stay inactive' : ''
        }`;
      }
      case 'VersionConverted':
        return `made a PDF of ${version()} (${String(d.converter)})`;
      case 'VersionProcessingStarted':
        return `started processing ${version()}${Number(d.pageCount) > 0 ? ` (${pageCount(Number(d.pageCount))})` : ''}${
          Number(d.attempt) > 1 ? `, attempt ${String(d.attempt)}` : ''
        }`;
      case 'VersionPagesRendered': {
        const list = (d.pages as { position: number }[] | undefined) ?? [];
        const first = list[0]?.position;
        const last = list.at(-1)?.position;
        return first === undefined
          ? `rendered pages of ${version()}`
          : `rendered ${first === last ? `page ${first}` : `pages ${first}–${last}`} of ${version()}`;
      }
      case 'VersionProcessed':
        return `finished processing ${version()}: ${pageCount(Number(d.pageCount))}`;
      case 'VersionProcessingFailed':
        return `could not process ${version()}: ${String(d.reason)}`;
      case 'VersionActivated':
        return `activated ${version()}`;
      case 'VersionDeleted':
        return `deleted ${version()}`;
      case 'PreviewPublished':
        return d.replacedVersionId
          ? `pushed a new version to preview ${String(d.name)}`
          : `published preview ${String(d.name)}`;
      case 'PreviewCompared':
        return `compared preview ${String(d.name)} with the active version`;
      case 'PreviewPromoted':
        return `promoted preview ${String(d.name)}: ${version()} is active`;
      case 'PreviewDeleted':
        return d.expired
          ? `deleted preview ${String(d.name)}, unchanged for too long`
          : `deleted preview ${String(d.name)}`;
      case 'FlipbookVisibilityChanged':
        return VISIBILITY_WORDS[String(d.visibility)] ?? 'changed who can read it';
      case 'FlipbookEmbedsChanged': {
        const origins = (d.origins as string[] | undefined) ?? [];
        return origins.length === 0
          ? 'let the sites its visibility allows embed it'
          : `let ${origins.join(', ')} embed it`;
      }
      case 'ShareLinkCreated':
        return `made the share link “${String(d.label)}”`;
      case 'ShareLinkEdited':
        return `changed ${link()}`;
      case 'ShareLinkRevoked':
        return `revoked ${link()}`;
      default:
        return `recorded ${event.type}`;
    }
  })();
  return html`<strong>${actorWords(event.metadata.actor)}</strong> ${what}`;
};

const VISIBILITY_WORDS: Record<string, string> = {
  public: 'let anyone with its link read it',
  workspace: 'let only the workspace’s members read it',
  links: 'let only people with a share link read it',
};

const editWords = (d: Record<string, unknown>) => {
  const parts: string[] = [];
  if (typeof d.title === 'string') parts.push(`the title to “${d.title}”`);
  if (typeof d.slug === 'string') parts.push(`the slug to “${d.slug}”`);
  if (typeof d.description === 'string') parts.push('the description');
  if (typeof d.direction === 'string') parts.push(`the reading direction to ${d.direction}`);
  return parts.length === 0 ? 'edited the flipbook' : `changed ${parts.join(', ')}`;
};

/** From where: the recorded address and a short name of the browser or client. */
const where = (event: LoggedEvent) => {
  const { client_ip: ip, user_agent: agent } = event.metadata;
  const client = agent ? clientName(agent) : null;
  return [ip ? ` · from ${ip}` : '', client ? ` · ${client}` : ''].join('');
};

const BROWSERS: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/Firefox\//, 'Firefox'],
  [/HeadlessChrome\//, 'Headless Chrome'],
  [/Chrome\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Mac OS X/, 'macOS'],
  [/Windows/, 'Windows'],
  [/Linux/, 'Linux'],
];

export const clientName = (agent: string) => {
  const browser = BROWSERS.find(([pattern]) => pattern.test(agent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(agent))?.[1];
  if (browser) return system ? `${browser} on ${system}` : browser;
  // a command-line client names itself first: flipbook-cli/1.2, curl/8.5
  return agent.split(/[\s(]/)[0]?.slice(0, 40) || null;
};
