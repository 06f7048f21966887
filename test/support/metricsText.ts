// The service's /metrics, read as a test reads it: the text (checked as Prometheus's format), and
// one series' value.
import { expect } from 'vitest';
import { appFetch } from './inProcess.ts';

/** The metrics text of the service at `base` (an app in process or a daemon). */
export const metricsOf = async (base: string) => {
  const res = await appFetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

/** A series' value in a metrics text (`name{labels}`), or undefined when it is not there. */
export const seriesValue = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
