// Following a version while it is processing: the dashboard's status JSON, polled every second
// at first, then less often (up to every 5 s), until it is done or failed. `onStatus` sees every
// answer; the promise ends with the last one.

/** A version's progress as the dashboard's status JSON says it (src/app/flipbookOverview.ts). */
export type VersionStatus = {
  number: number;
  status: 'pending' | 'processing' | 'done' | 'error';
  /** the total once processing knows it (0 before) */
  pageCount: number;
  /** pages rendered so far: equal to pageCount once done */
  pagesReady: number;
  error: string | null;
};

export const pollStatus = async (
  url: string,
  onStatus: (status: VersionStatus) => void,
): Promise<VersionStatus> => {
  let delay = 750;
  for (;;) {
    const response = await fetch(url, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
    });
    const status: (VersionStatus & { error?: string }) | null = await response
      .json()
      .catch(() => null);
    if (!response.ok || !status) {
      throw new Error(status?.error ?? 'Could not follow the processing: reload the page.');
    }
    onStatus(status);
    if (status.status === 'done' || status.status === 'error') return status;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(5000, delay * 1.25);
  }
};
