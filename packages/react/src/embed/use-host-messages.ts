import { type RefObject, useEffect, useMemo, useRef } from 'react';
import type { EmbedSessionState } from './embed-session';
import { hostTargets, postToHost } from './host-messages';

/** Where messages to the framing page go: see `hostTargets`. */
export function useHostTargets(
  state: EmbedSessionState,
  frameOrigins: readonly string[],
  parent: string | undefined,
): string[] {
  const framingOrigin =
    state.status === 'ready'
      ? state.session.framingOrigin
      : state.status === 'ended'
        ? state.framingOrigin
        : null;
  return useMemo(
    () => hostTargets(framingOrigin, frameOrigins, parent),
    [framingOrigin, frameOrigins, parent],
  );
}

/** Tells the framing page when the session has ended (`bridgekit:session-ended`). */
export function useSessionEndedMessage(
  status: EmbedSessionState['status'],
  targets: readonly string[],
) {
  useEffect(() => {
    if (status === 'ended') postToHost({ type: 'bridgekit:session-ended' }, targets);
  }, [status, targets]);
}

/** Tells the framing page the height of the returned ref's element (`bridgekit:resize`). */
export function useResizeMessages(targets: readonly string[]): RefObject<HTMLDivElement | null> {
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = root.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    let last = -1;
    const report = () => {
      const height = Math.ceil(element.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      postToHost({ type: 'bridgekit:resize', height }, targets);
    };
    const observer = new ResizeObserver(report);
    observer.observe(element);
    report();
    return () => observer.disconnect();
  }, [targets]);
  return root;
}
