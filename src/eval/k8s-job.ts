/**
 * `crow eval k8s`: an evaluation as a Kubernetes Indexed Job, and the
 * NetworkPolicy its pods run under. Each of `shards` pods runs `crow eval
 * k8s shard $(JOB_COMPLETION_INDEX)/SHARDS` with the evaluation's own
 * flags: one slice of the runs, its results folder printed to the pod's log
 * at the end (shard-stream.ts), so no volume is shared between pods (a
 * ReadWriteMany claim hangs on most clusters' default storage) and
 * `crow eval k8s collect` gathers the logs into one report. The pods run
 * model-written code, so they run as an unprivileged user with every
 * capability dropped, no service-account token, the CPU, memory and disk
 * the person gives, keys from a Secret, and egress only to DNS and the
 * model's endpoint. Their root filesystem stays writable where that user
 * may write (its home, /tmp): Crow keeps its files only in folders no
 * other user can change, which an emptyDir (mode 0777, no sticky bit) is
 * not, and the container's own layer goes with the pod.
 */
import { stringify } from 'yaml';

export interface K8sJobOptions {
  name: string;
  /** An image with crow on PATH and what the tasks' checks need (eval/container/Containerfile builds one). */
  image: string;
  shards: number;
  parallelism: number;
  /** `crow eval` arguments every shard runs with (agents, tasks, model, budget, seed…), without --shard and --out. */
  evalArgs: string[];
  /** Environment variables taken from `secret`, by the same key (the provider keys). */
  secretVariables: string[];
  secret: string;
  /** Retries per shard before the Job gives that index up. */
  retries: number;
  /** Each pod's CPU, memory and disk (ephemeral storage), requested and (memory, disk) limited, in Kubernetes' quantities. */
  cpu: string;
  memory: string;
  disk: string;
  /** Where the pods may connect besides DNS: CIDR blocks, each on `port`. */
  egress: { cidrs: string[]; port: number };
}

/** The user the Containerfile makes, with its home; the pods run as it whatever the image says. */
export const POD_USER = 10001;
const POD_HOME = '/home/crow';

/** Everything that is not the public internet: cluster and private networks, and the cloud metadata address. */
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10', '127.0.0.0/8'];
/** Default egress: HTTPS to any public address (the model's API), nothing private. */
export const PUBLIC_HTTPS = { cidrs: ['0.0.0.0/0'], port: 443 };

/**
 * One Indexed Job of locked-down pods, as `crow eval k8s` and `crow attempts
 * k8s` write it: `completions` pods, each running `crow ARGS` (Kubernetes
 * fills in $(JOB_COMPLETION_INDEX) in them), under the same security
 * context, resources, keys and NetworkPolicy.
 */
export interface PodJob {
  /** The app label: which crow command made the Job. */
  app: string;
  /** The container's name. */
  container: string;
  name: string;
  image: string;
  completions: number;
  parallelism: number;
  retries: number;
  /** What the container runs: `crow` with these arguments. */
  args: string[];
  secretVariables: string[];
  secret: string;
  cpu: string;
  memory: string;
  disk: string;
  egress: { cidrs: string[]; port: number };
  /** Secrets whose files are mounted together, read-only, at `path` (the run's own inputs); none when absent. */
  files?: { secrets: string[]; path: string };
}

function labelsOf(job: Pick<PodJob, 'app' | 'name'>): Record<string, string> {
  return { 'app.kubernetes.io/name': job.app, 'app.kubernetes.io/instance': job.name };
}

export function k8sJob(options: K8sJobOptions): Record<string, unknown> {
  return indexedJob(evalJob(options));
}

/** The eval's Job: one shard per pod. */
function evalJob(options: K8sJobOptions): PodJob {
  return {
    ...options,
    app: 'crow-eval',
    container: 'crow-eval',
    completions: options.shards,
    args: ['eval', 'k8s', 'shard', `$(JOB_COMPLETION_INDEX)/${options.shards}`, ...options.evalArgs],
  };
}

export function indexedJob(job: PodJob): Record<string, unknown> {
  const labels = labelsOf(job);
  const mount = job.files ? { volumeMounts: [{ name: 'run', mountPath: job.files.path, readOnly: true }] } : {};
  const sources = job.files?.secrets.map((name) => ({ secret: { name } }));
  const volume = sources ? { volumes: [{ name: 'run', projected: { sources, defaultMode: 0o440 } }] } : {};
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: job.name, labels },
    spec: {
      completionMode: 'Indexed',
      completions: job.completions,
      parallelism: job.parallelism,
      backoffLimitPerIndex: job.retries,
      maxFailedIndexes: job.completions,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // Model-written code runs here: it gets no credential to the cluster's API.
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: POD_USER, runAsGroup: POD_USER, fsGroup: POD_USER, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: job.container,
              image: job.image,
              command: ['crow'],
              args: job.args,
              env: [
                { name: 'HOME', value: POD_HOME },
                ...job.secretVariables.map((name) => ({ name, valueFrom: { secretKeyRef: { name: job.secret, key: name } } })),
              ],
              resources: {
                requests: { cpu: job.cpu, memory: job.memory, 'ephemeral-storage': job.disk },
                limits: { memory: job.memory, 'ephemeral-storage': job.disk },
              },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              ...mount,
            },
          ],
          ...volume,
        },
      },
    },
  };
}

/** Ingress from nowhere; egress to DNS and to `options.egress` only (the default leaves out every private range). */
export function k8sNetworkPolicy(options: K8sJobOptions): Record<string, unknown> {
  return podNetworkPolicy(evalJob(options));
}

export function podNetworkPolicy(job: PodJob): Record<string, unknown> {
  const publicDefault = job.egress.cidrs.length === 1 && job.egress.cidrs[0] === '0.0.0.0/0';
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: job.name, labels: labelsOf(job) },
    spec: {
      podSelector: { matchLabels: labelsOf(job) },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [
        { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
        {
          to: job.egress.cidrs.map((cidr) => ({ ipBlock: { cidr, ...(publicDefault ? { except: PRIVATE_RANGES } : {}) } })),
          ports: [{ protocol: 'TCP', port: job.egress.port }],
        },
      ],
    },
  };
}

/** The Job and its NetworkPolicy as YAML documents, with a comment saying how to run them and gather the results. */
export function k8sJobYaml(options: K8sJobOptions): string {
  const head = [
    `# crow eval as a Kubernetes Indexed Job: ${options.shards} shards, ${options.parallelism} at a time, each ${options.cpu} CPU, ${options.memory} of memory and ${options.disk} of disk.`,
    `# Needs the Secret "${options.secret}" holding ${options.secretVariables.join(', ') || 'the provider keys'}:`,
    `#   kubectl create secret generic ${options.secret} ${options.secretVariables.map((name) => `--from-literal=${name}="$${name}"`).join(' ') || '--from-literal=NAME=VALUE'}`,
    `#   kubectl apply -f THIS_FILE && kubectl wait --for=condition=complete --timeout=24h job/${options.name}`,
    `# Each shard prints its results to its log; gather them into one report (before the pods are deleted):`,
    `#   crow eval k8s collect --job ${options.name} --out merged`,
  ];
  return `${head.join('\n')}\n${stringify(k8sJob(options))}---\n${stringify(k8sNetworkPolicy(options))}`;
}
