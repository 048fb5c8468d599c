/**
 * `crow eval k8s`: an evaluation as a Kubernetes Indexed Job. Each of
 * `shards` pods runs `crow eval --shard $(JOB_COMPLETION_INDEX)/SHARDS` with
 * the evaluation's own flags, writing its results folder to a volume
 * (`/results/shard-INDEX`), at most `parallelism` at once; `crow eval merge`
 * then combines the shard folders. Keys come from a Secret, never from
 * the manifest. Kubernetes substitutes `$(JOB_COMPLETION_INDEX)` in the
 * container's arguments from the variable the Job controller sets.
 */
import { stringify } from 'yaml';

export interface K8sJobOptions {
  name: string;
  /** An image with crow on PATH (and what the tasks' checks need). */
  image: string;
  shards: number;
  parallelism: number;
  /** `crow eval` arguments every shard runs with (agents, tasks, model, budget, seed…), without --shard and --out. */
  evalArgs: string[];
  /** Environment variables taken from `secret`, by the same key (the provider keys). */
  secretVariables: string[];
  secret: string;
  /** The PersistentVolumeClaim the shards write their folders to. */
  volumeClaim: string;
  /** Retries per shard before the Job gives that index up. */
  retries: number;
}

export const RESULTS_MOUNT = '/results';

export function k8sJob(options: K8sJobOptions): Record<string, unknown> {
  const labels = { 'app.kubernetes.io/name': 'crow-eval', 'app.kubernetes.io/instance': options.name };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: options.name, labels },
    spec: {
      completionMode: 'Indexed',
      completions: options.shards,
      parallelism: options.parallelism,
      backoffLimitPerIndex: options.retries,
      maxFailedIndexes: options.shards,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'crow-eval',
              image: options.image,
              command: ['crow'],
              args: ['eval', ...options.evalArgs, '--shard', `$(JOB_COMPLETION_INDEX)/${options.shards}`, '--out', `${RESULTS_MOUNT}/shard-$(JOB_COMPLETION_INDEX)`],
              env: options.secretVariables.map((name) => ({ name, valueFrom: { secretKeyRef: { name: options.secret, key: name } } })),
              volumeMounts: [{ name: 'results', mountPath: RESULTS_MOUNT }],
            },
          ],
          volumes: [{ name: 'results', persistentVolumeClaim: { claimName: options.volumeClaim } }],
        },
      },
    },
  };
}

/** The Job as YAML, with a comment saying how to run it and gather the results. */
export function k8sJobYaml(options: K8sJobOptions): string {
  const head = [
    `# crow eval as a Kubernetes Indexed Job: ${options.shards} shards, ${options.parallelism} at a time.`,
    `# Needs: the Secret "${options.secret}" holding ${options.secretVariables.join(', ') || 'the provider keys'}, and the PersistentVolumeClaim "${options.volumeClaim}".`,
    `#   kubectl apply -f THIS_FILE && kubectl wait --for=condition=complete job/${options.name}`,
    `# Then copy ${RESULTS_MOUNT} off the volume and combine the shards: crow eval merge --out merged ${RESULTS_MOUNT}/shard-*`,
  ];
  return `${head.join('\n')}\n${stringify(k8sJob(options))}`;
}
