import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import type * as OtelApi from '@opentelemetry/api';
import type * as OtelCore from '@opentelemetry/core';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtelResources from '@opentelemetry/resources';
import type * as OtelTrace from '@opentelemetry/sdk-trace';
import { lazy } from '../lazy';

const api = lazy<typeof OtelApi>('@opentelemetry/api');
const core = lazy<typeof OtelCore>('@opentelemetry/core');
const otlp = lazy<typeof OtlpHttp>('@opentelemetry/exporter-trace-otlp-http');
const resources = lazy<typeof OtelResources>('@opentelemetry/resources');
const sdk = lazy<typeof OtelTrace>('@opentelemetry/sdk-trace');

/** A request's server span: ended with the route it matched and its status. */
export interface RequestSpan {
  readonly traceId: string;
  end(route: string, status: number): void;
}

/** OpenTelemetry tracing of requests; off (every call a no-op) unless configured. */
export interface Tracing {
  /** Starts the server span of a request, child of its W3C `traceparent` when it has one. */
  startRequest(method: string, headers: IncomingHttpHeaders): RequestSpan | undefined;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

export const noTracing: Tracing = { startRequest: () => undefined, shutdown: async () => {} };

/**
 * Server spans sent in batches to an OTLP/HTTP endpoint (`…/v1/traces`, JSON). A request with
 * a valid `traceparent` continues that trace (parent-based sampling: the caller's sampled flag
 * holds); one without starts its own.
 */
export function createTracing(options: { url: string; serviceName: string }): Tracing {
  const { context, SpanKind, SpanStatusCode, ROOT_CONTEXT, defaultTextMapGetter } = api();
  const provider = new (sdk().TracerProvider)({
    resource: resources().resourceFromAttributes({
      'service.name': options.serviceName,
      'service.instance.id': `${os.hostname()}:${process.pid}`,
    }),
    spanProcessors: [
      new (sdk().BatchSpanProcessor)({
        exporter: new (otlp().OTLPTraceExporter)({ url: options.url }),
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  const tracer = provider.getTracer('bridgekit');
  const propagator = new (core().W3CTraceContextPropagator)();
  return {
    startRequest(method, headers) {
      const parent = headers.traceparent
        ? propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter)
        : context.active();
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
        parent,
      );
      return {
        traceId: span.spanContext().traceId,
        end(route, status) {
          span.updateName(`${method} ${route}`);
          span.setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
