import type { DataSource } from '@bridgekit/contract';
import { useEffect, useId, useState } from 'react';
import type { StatusMessages } from './list-context';

type Tone = 'verified' | 'danger' | 'busy' | undefined;

/** One badge: its text and tone, the time it refers to, and what its tip says. */
export interface BadgeState {
  label: string;
  tone: Tone;
  /** ISO time shown relative next to the badge; null when there is none. */
  time: string | null;
  /** The failure reason (healthErrorMessage / syncErrorMessage), if any. */
  reason: string | null;
  /** Absolute times for the tip, each as a sentence ("Last checked Nov 26, 2026, …"). */
  times: string[];
}

const at = (text: StatusMessages, line: (when: string) => string, iso: string | null) =>
  iso ? [line(text.absoluteTime(iso))] : [];

/** `checking`: a check this list asked for and has not had the answer to yet. */
export function healthState(
  record: DataSource,
  text: StatusMessages,
  checking = false,
): BadgeState {
  const { lastHealthStatus: status, lastHealthCheckAttemptAt: checked } = record;
  if (checking) return { label: text.checking, tone: 'busy', time: null, reason: null, times: [] };
  if (!status)
    return { label: text.healthUnknown, tone: undefined, time: null, reason: null, times: [] };
  const healthy = status === 'HEALTHY';
  return {
    label: healthy ? text.healthy : text.unhealthy,
    tone: healthy ? 'verified' : 'danger',
    time: checked,
    reason: healthy ? null : record.healthErrorMessage,
    times: [
      ...at(text, text.checkedAt, checked),
      ...(healthy ? [] : at(text, text.lastHealthyAt, record.lastHealthyAt)),
    ],
  };
}

/** `syncing`: a sync this page asked for and has not seen finish yet. */
export function syncState(record: DataSource, text: StatusMessages, syncing = false): BadgeState {
  const attempt = record.lastSyncAttemptAt;
  const succeeded = record.lastSuccessfulSyncAt;
  const status = syncing ? 'SYNCING' : record.lastSyncStatus;
  const none = { reason: null, times: [] as string[] };
  switch (status) {
    case 'PENDING':
      return { label: text.notSynced, tone: undefined, time: null, ...none };
    case 'SYNCING':
      return {
        label: text.syncing,
        tone: 'busy',
        time: syncing ? null : attempt,
        reason: null,
        times: syncing ? [] : at(text, text.syncStartedAt, attempt),
      };
    case 'SUCCEEDED':
      return {
        label: text.synced,
        tone: 'verified',
        time: succeeded,
        reason: null,
        times: at(text, text.lastSyncedAt, succeeded),
      };
    case 'FAILED':
      return {
        label: text.syncFailed,
        tone: 'danger',
        time: attempt,
        reason: record.syncErrorMessage,
        times: [
          ...at(text, text.syncAttemptAt, attempt),
          ...at(text, text.lastSyncedAt, succeeded),
        ],
      };
  }
}

/** The current time, again every 30 s, so relative times stay true. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

interface StatusBadgeProps {
  /** What the badge is about ("Health"), read before it by screen readers. */
  topic: string;
  state: BadgeState;
  now: number;
  text: StatusMessages;
}

/**
 * A state badge with its relative time. When there is more to say (the absolute time, the
 * failure reason) the badge is a button whose tip shows on hover and on focus, is its
 * `aria-describedby`, stays open on click (touch) and closes with Escape.
 */
export function StatusBadge({ topic, state, now, text }: StatusBadgeProps) {
  const tipId = useId();
  const [pinned, setPinned] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const when = state.time ? text.relativeTime(state.time, now) : null;
  // Spaces as text of their own, so every browser's accessible name keeps them.
  const content = (
    <>
      <span className="bk-visually-hidden">{topic}:</span> {state.label}
      {state.time && (
        <>
          {' '}
          <span aria-hidden="true">·</span>{' '}
          <time dateTime={state.time} className="bk-state__time">
            {when}
          </time>
        </>
      )}
    </>
  );
  const tip = state.reason || state.times.length > 0;
  if (!tip) {
    return (
      <span className="bk-state">
        <span className="bk-badge bk-state__badge" data-variant={state.tone}>
          {content}
        </span>
      </span>
    );
  }
  return (
    <span
      className="bk-state"
      data-open={pinned || undefined}
      data-dismissed={dismissed || undefined}
    >
      <button
        type="button"
        className="bk-badge bk-state__badge"
        data-variant={state.tone}
        aria-describedby={tipId}
        onClick={() => {
          setPinned(!pinned);
          setDismissed(false);
        }}
        onMouseEnter={() => setDismissed(false)}
        onBlur={() => {
          setPinned(false);
          setDismissed(false);
        }}
        onKeyDown={(event) => {
          if (event.key !== 'Escape') return;
          setPinned(false);
          setDismissed(true);
        }}
      >
        {content}
      </button>
      <span id={tipId} role="tooltip" className="bk-state__tip">
        {state.reason && <span className="bk-state__reason">{state.reason}</span>}
        {state.times.map((line) => (
          <span key={line} className="bk-state__when">
            {line}
          </span>
        ))}
      </span>
    </span>
  );
}
