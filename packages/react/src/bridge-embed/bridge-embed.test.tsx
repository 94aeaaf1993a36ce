import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BridgeEmbed } from './bridge-embed';

afterEach(cleanup);

const SRC = 'https://bridge.example/api/sso/jwt?jwt=a.b.c&theme=dark';

function setup() {
  const onSessionEnded = vi.fn();
  const onResize = vi.fn();
  const { container } = render(
    <BridgeEmbed src={SRC} onSessionEnded={onSessionEnded} onResize={onResize} />,
  );
  const iframe = container.querySelector('iframe')!;
  const post = (
    data: unknown,
    init: { origin?: string; source?: MessageEventSource | null } = {},
  ) =>
    act(() => {
      window.dispatchEvent(
        new MessageEvent('message', {
          data,
          origin: init.origin ?? 'https://bridge.example',
          source: init.source === undefined ? iframe.contentWindow : init.source,
        }),
      );
    });
  return { iframe, post, onSessionEnded, onResize };
}

describe('BridgeEmbed', () => {
  it('renders the iframe on src with clipboard-write and the initial height', () => {
    const { iframe } = setup();
    expect(iframe.getAttribute('src')).toBe(SRC);
    expect(iframe.getAttribute('allow')).toBe('clipboard-write');
    expect(iframe.getAttribute('title')).toBe('Bridgekit');
    expect(iframe.style.height).toBe('480px');
    expect(iframe.dataset.state).toBe('loading');
  });

  it('takes its height from the page’s resize messages', () => {
    const { iframe, post, onResize } = setup();
    post({ type: 'bridgekit:resize', height: 812.4 });
    expect(iframe.style.height).toBe('813px');
    expect(iframe.dataset.state).toBe('ready');
    expect(onResize).toHaveBeenCalledWith(813);
  });

  it('calls onSessionEnded on session-ended', () => {
    const { post, onSessionEnded } = setup();
    post({ type: 'bridgekit:session-ended' });
    expect(onSessionEnded).toHaveBeenCalledTimes(1);
    expect(onSessionEnded).toHaveBeenCalledWith({});
  });

  it('passes on why a sign-in failed, and nothing that is not a reason or a limit', () => {
    const { post, onSessionEnded } = setup();
    post({ type: 'bridgekit:session-ended', reason: 'sso_token_lifetime_too_long', limit: 3600 });
    post({ type: 'bridgekit:session-ended', reason: 42, limit: '3600', extra: 'x' });
    expect(onSessionEnded.mock.calls).toEqual([
      [{ reason: 'sso_token_lifetime_too_long', limit: 3600 }],
      [{}],
    ]);
  });

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['another window', { source: window }],
    ['no window', { source: null }],
  ])('ignores a message from %s', (_, init) => {
    const { iframe, post, onSessionEnded } = setup();
    post({ type: 'bridgekit:resize', height: 999 }, init);
    post({ type: 'bridgekit:session-ended' }, init);
    expect(iframe.style.height).toBe('480px');
    expect(onSessionEnded).not.toHaveBeenCalled();
  });

  it.each([
    ['a negative height', { type: 'bridgekit:resize', height: -1 }],
    ['a height that is not a number', { type: 'bridgekit:resize', height: '900' }],
    ['not an object', 'bridgekit:resize'],
    ['an unknown type', { type: 'other', height: 10 }],
  ])('ignores %s', (_, data) => {
    const { iframe, post } = setup();
    post(data);
    expect(iframe.style.height).toBe('480px');
  });
});
