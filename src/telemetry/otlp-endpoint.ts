// Apart from otlp-export.ts so that deciding whether to export loads no OpenTelemetry code.

/**
 * Where to export traces, or undefined when export is off. The environment
 * wins over the config file, as elsewhere in crow:
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given;
 * OTEL_EXPORTER_OTLP_ENDPOINT is a base URL that gets "/v1/traces" appended,
 * as the OpenTelemetry specification says; `configured` (the config file's
 * value) is a traces URL used as given.
 */
export function otlpEndpointFrom(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (traces !== undefined) return traces;
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base !== undefined) return `${base.replace(/\/+$/, '')}/v1/traces`;
  return nonEmpty(configured);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
