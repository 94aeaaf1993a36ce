import {
  type ComponentPropsWithoutRef,
  forwardRef,
  useCallback,
  useEffect,
  useImperativeHandle,
  useRef,
  useState,
} from 'react';

export type BridgeEmbedProps = Omit<ComponentPropsWithoutRef<'iframe'>, 'src' | 'children'> & {
  /**
   * The full-embed sign-in URL your backend built: `{bridge}/api/sso/jwt?jwt=<token>` plus any
   * options (`theme`, `hide_org_name`…). Give a fresh URL (a fresh token) to sign in again.
   */
  src: string;
  /** Called when the page's session has ended or it could not sign in: load a fresh URL. */
  onSessionEnded?: (() => void) | undefined;
  /** Called with the page's content height (CSS pixels) each time it changes. */
  onResize?: ((height: number) => void) | undefined;
  /** Height before the page has reported one; default 480. */
  initialHeight?: number | undefined;
};

const isMessage = (data: unknown): data is { type: string; height?: unknown } =>
  typeof data === 'object' &&
  data !== null &&
  typeof (data as { type?: unknown }).type === 'string';

const originOf = (src: string) => {
  try {
    return new URL(src, window.location.href).origin;
  } catch {
    return null;
  }
};

/**
 * The bridge's full-embed page in an iframe, as tall as its content: it takes the page's
 * `bridgekit:resize` messages and calls `onSessionEnded` on `bridgekit:session-ended`. Only
 * messages from this iframe's window and from the bridge's origin (the origin of `src`) count.
 *
 * @example
 * <BridgeEmbed src={signedUrl} title="Reports" onSessionEnded={() => refetchSignedUrl()} />
 */
export const BridgeEmbed = /* @__PURE__ */ forwardRef<HTMLIFrameElement, BridgeEmbedProps>(
  function BridgeEmbed(props, ref) {
    const {
      src,
      onSessionEnded,
      onResize,
      initialHeight = 480,
      title = 'Bridgekit',
      style,
      allow,
      ...rest
    } = props;
    const frame = useRef<HTMLIFrameElement>(null);
    useImperativeHandle(ref, () => frame.current as HTMLIFrameElement);
    const [height, setHeight] = useState<number | null>(null);
    const ended = useRef(onSessionEnded);
    const resized = useRef(onResize);
    ended.current = onSessionEnded;
    resized.current = onResize;

    const onMessage = useCallback(
      (event: MessageEvent) => {
        if (event.source !== frame.current?.contentWindow) return;
        if (event.origin !== originOf(src) || !isMessage(event.data)) return;
        if (event.data.type === 'bridgekit:resize') {
          const next = event.data.height;
          if (typeof next !== 'number' || !Number.isFinite(next) || next < 0) return;
          setHeight(Math.ceil(next));
          resized.current?.(Math.ceil(next));
        } else if (event.data.type === 'bridgekit:session-ended') {
          ended.current?.();
        }
      },
      [src],
    );

    useEffect(() => {
      window.addEventListener('message', onMessage);
      return () => window.removeEventListener('message', onMessage);
    }, [onMessage]);

    return (
      <iframe
        ref={frame}
        src={src}
        title={title}
        allow={allow ?? 'clipboard-write'}
        data-state={height === null ? 'loading' : 'ready'}
        style={{
          display: 'block',
          width: '100%',
          border: 0,
          ...style,
          height: height ?? initialHeight,
        }}
        {...rest}
      />
    );
  },
);
