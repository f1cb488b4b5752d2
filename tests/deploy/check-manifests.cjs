// check-manifests.cjs — deploy/k8s/*.yaml and deploy/compose/ checked with no
// cluster and no Docker engine (make deploy-check).
//
//   node tests/deploy/check-manifests.cjs NODE_MODULES_DIR
//
// Kubernetes objects:
//   1. each document is validated against the Kubernetes OpenAPI schema of
//      its apiVersion and kind, as compiled by the kubernetes-models package
//      (types, required members, enums, formats);
//   2. strictly: those validators ignore members the schema does not know
//      (a typo such as "readinesProbe" would pass), so the document is
//      handed to them through Proxies that record which members each object
//      was asked for; a member nobody asked for is unknown to the schema,
//      and fails;
//   3. the operational rules of docs/operations.md (Deploy): replicas
//      >= 2, maxUnavailable 0, probes on /readyz and /livez by httpGet on
//      the container's port, CPU request = limit, CLASHD_THREADS from
//      limits.cpu, the restricted securityContext with the Dockerfile's
//      user, a preStop sleep, a grace period above preStop + drain timeout,
//      an autoscaling/v2 CPU HPA and a policy/v1 PDB (minAvailable 1) for
//      this Deployment, a Service whose selector picks its pods; every
//      CLASHD_* variable set is one clashd knows (server/config.c), the
//      per-client limits on at values safe behind a proxy.
// Compose: three clashd replicas of the image built from the Dockerfile and
// an haproxy mounting deploy/haproxy/haproxy.cfg, whose default server
// addresses are those replicas on clashd's port in every backend (least
// connections, and hashed on X-Clashd-Shape: consistently), every retries
// and retry-on line within the rules, option redispatch for each backend,
// with clashd's per-client-address limits off (every request comes from
// HAProxy).  The Deployment's are on, at values safe behind a proxy.
// The shared store: in both, clashd's CLASHD_STORE_REDIS names a Redis
// that is there (k8s: a Service selecting a StatefulSet's Redis pods on its
// port; compose: a redis service), run with maxmemory under a memory limit
// and maxmemory-policy allkeys-lru, persistence off.
// Prints one line per file checked; exits 1 listing every problem.
'use strict';
const fs = require('fs');
const path = require('path');

const modules = process.argv[2] && path.resolve(process.argv[2]);
if (!modules) {
	console.error('usage: check-manifests.cjs NODE_MODULES_DIR');
	process.exit(2);
}
const YAML = require(path.join(modules, 'yaml'));
const schemas = path.join(modules, 'kubernetes-models', '_schemas');

const problems = [];
const problem = (file, msg) => problems.push(`${file}: ${msg}`);

// ---- 1 and 2: the schema, strictly ------------------------------------------

function schemaName(apiVersion, kind) {
	const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
	const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
	const g = group.split('.')[0];
	return `IoK8sApi${cap(g)}${cap(version)}${kind}`;
}

// Wrap `value` so that every member read is recorded under its path.
function watched(value, at, asked) {
	if (value === null || typeof value !== 'object') return value;
	if (!asked.has(at)) asked.set(at, new Set());
	const seen = asked.get(at);
	return new Proxy(value, {
		get(target, key, receiver) {
			if (typeof key === 'string') seen.add(key);
			const v = Reflect.get(target, key, receiver);
			return typeof key === 'string' && v !== null && typeof v === 'object'
				? watched(v, `${at}/${key}`, asked) : v;
		},
		has(target, key) {
			if (typeof key === 'string') seen.add(key);
			return Reflect.has(target, key);
		},
	});
}

// Members of objects the validator looked into but never asked for.
function unknownMembers(value, at, asked, out) {
	if (value === null || typeof value !== 'object') return;
	const seen = asked.get(at);
	if (!seen) return; // not an object the schema describes member by member
	for (const key of Object.keys(value)) {
		if (!Array.isArray(value) && !seen.has(key)) out.push(`${at}/${key}`);
		unknownMembers(value[key], `${at}/${key}`, asked, out);
	}
}

function validate(file, doc) {
	const name = schemaName(doc.apiVersion || '', doc.kind || '');
	let mod;
	try {
		mod = require(path.join(schemas, `${name}.js`));
	} catch (e) {
		problem(file, `no schema for apiVersion ${doc.apiVersion}, kind ${doc.kind}`);
		return false;
	}
	const asked = new Map();
	const ok = mod.validate(watched(doc, '', asked));
	if (!ok)
		for (const e of mod.validate.errors || [])
			problem(file, `${doc.kind} ${e.instancePath || '/'}: ${e.message || e.keyword} ${JSON.stringify(e.params)}`);
	const unknown = [];
	unknownMembers(doc, '', asked, unknown);
	for (const u of unknown) problem(file, `${doc.kind}: member unknown to the schema: ${u}`);
	return ok && unknown.length === 0;
}

// ---- 3: the operational rules ----------------------------------------------

const root = path.resolve(__dirname, '..', '..');
const read = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');

// clashd's variables and routes, from its sources.
const configC = read('server/config.c');
const clashdEnv = new Set([...configC.matchAll(/"(CLASHD_[A-Z_]+)"/g)].map((m) => m[1]));
const routes = new Set([...read('server/http_route.c').matchAll(/"(\/[a-z0-9/._-]*)"/g)].map((m) => m[1]));
const dockerfile = read('Dockerfile');
const dockerUser = (dockerfile.match(/^USER\s+(\d+)(?::(\d+))?/m) || []).slice(1).map(Number);
const seconds = (s) => {
	const m = String(s).match(/^(\d+)(ms|s|m)?$/);
	if (!m) return NaN;
	return Number(m[1]) * ({ ms: 0.001, s: 1, m: 60 }[m[2] || 's']);
};

function checkDeployment(file, d, all) {
	const need = (cond, msg) => { if (!cond) problem(file, `Deployment ${d.metadata.name}: ${msg}`); };
	const spec = d.spec;
	const pod = spec.template.spec;
	need(spec.replicas >= 2, 'replicas must be >= 2');
	need(spec.strategy && spec.strategy.type === 'RollingUpdate' &&
		spec.strategy.rollingUpdate && spec.strategy.rollingUpdate.maxUnavailable === 0,
		'rolling updates need maxUnavailable: 0');
	const labels = spec.template.metadata.labels || {};
	for (const [k, v] of Object.entries(spec.selector.matchLabels || {}))
		need(labels[k] === v, `selector ${k}=${v} does not match the pod labels`);
	need(pod.terminationGracePeriodSeconds === 30, 'terminationGracePeriodSeconds must be 30');
	const psc = pod.securityContext || {};
	need(psc.runAsNonRoot === true, 'pod securityContext.runAsNonRoot must be true');
	need(psc.seccompProfile && psc.seccompProfile.type === 'RuntimeDefault', 'pod seccompProfile must be RuntimeDefault');
	const c = (pod.containers || []).find((x) => x.name === 'clashd');
	need(c, 'no container named clashd');
	if (!c) return;
	const env = Object.fromEntries((c.env || []).map((e) => [e.name, e]));
	for (const name of Object.keys(env))
		need(!name.startsWith('CLASHD_') || clashdEnv.has(name), `${name} is not a clashd variable (server/config.c)`);
	const t = env.CLASHD_THREADS;
	need(t && t.valueFrom && t.valueFrom.resourceFieldRef && t.valueFrom.resourceFieldRef.resource === 'limits.cpu' &&
		t.valueFrom.resourceFieldRef.containerName === 'clashd',
		'CLASHD_THREADS must come from the Downward API: resourceFieldRef limits.cpu of container clashd');
	const res = c.resources || {};
	need(res.requests && res.limits && res.requests.cpu !== undefined &&
		String(res.requests.cpu) === String(res.limits.cpu), 'CPU request must equal the CPU limit');
	need(res.limits && res.limits.memory, 'a memory limit is needed');
	// tests/check_hostile.c proves the memory bound with exactly these.
	const hostile = read('tests/check_hostile.c');
	for (const name of ['CLASHD_MAX_BODY', 'CLASHD_MAX_REPLY', 'CLASHD_MAX_QUEUE', 'CLASHD_MAX_QUEUE_PER_CLIENT',
		'CLASHD_SHAPE_STORE', 'CLASHD_STORE_PER_CLIENT', 'CLASHD_IMPORT_MEMORY', 'CLASHD_MAX_IMPORT_BODY',
		'CLASHD_MAX_IMPORTS', 'MALLOC_ARENA_MAX']) {
		const v = env[name] && env[name].value;
		need(v && hostile.includes(`"${name}=${v}"`),
			`${name} (${v}) must be set, and equal to what tests/check_hostile.c runs clashd with`);
	}
	// Per-client limits on, and safe behind a proxy (every client may come
	// from one address): that address keeps at least half the connections
	// and more admitted queries than there are workers, others the rest.
	const num = (name, def) => Number(env[name] && env[name].value !== undefined ? env[name].value : def);
	const cpus = Math.ceil(/m$/.test(String(res.limits && res.limits.cpu)) ?
		parseInt(res.limits.cpu, 10) / 1000 : Number(res.limits && res.limits.cpu));
	const maxConn = num('CLASHD_MAX_CONNECTIONS', 1000), connPer = num('CLASHD_MAX_CONNECTIONS_PER_CLIENT', 100);
	need(Number.isInteger(connPer) && connPer > 0 && connPer < maxConn && connPer * 2 >= maxConn,
		`CLASHD_MAX_CONNECTIONS_PER_CLIENT (${connPer}) must be on, below CLASHD_MAX_CONNECTIONS (${maxConn}) and at least half of it`);
	const queue = num('CLASHD_MAX_QUEUE', 16 * cpus), queuePer = num('CLASHD_MAX_QUEUE_PER_CLIENT', Math.ceil(queue / 2));
	need(Number.isInteger(queuePer) && queuePer > cpus && queuePer < queue,
		`CLASHD_MAX_QUEUE_PER_CLIENT (${queuePer}) must be on, above the ${cpus} workers and below CLASHD_MAX_QUEUE (${queue})`);
	need(res.limits && res.limits.memory === '512Mi' && /\(size_t\)512 << 20/.test(hostile),
		'the memory limit must be the address-space limit of tests/check_hostile.c (512Mi)');
	const port = (c.ports || []).find((p) => p.name === 'http');
	need(port, 'no container port named http');
	const listen = env.CLASHD_LISTEN && env.CLASHD_LISTEN.value;
	need(port && listen && listen.endsWith(`:${port.containerPort}`),
		`CLASHD_LISTEN (${listen}) is not on the container port`);
	for (const [probe, want] of [['readinessProbe', '/readyz'], ['livenessProbe', '/livez']]) {
		const p = c[probe];
		need(p && p.httpGet && p.httpGet.path === want && (p.httpGet.port === 'http' ||
			(port && p.httpGet.port === port.containerPort)), `${probe} must be httpGet ${want} on the http port`);
		need(routes.has(want), `${want} is not a clashd route`);
	}
	const sc = c.securityContext || {};
	need(sc.runAsNonRoot === true, 'container runAsNonRoot must be true');
	need(sc.runAsUser === 10001 && sc.runAsUser === dockerUser[0], `runAsUser must be 10001, the Dockerfile's USER (${dockerUser[0]})`);
	need(sc.allowPrivilegeEscalation === false, 'allowPrivilegeEscalation must be false');
	need(sc.readOnlyRootFilesystem === true, 'readOnlyRootFilesystem must be true');
	need(sc.capabilities && JSON.stringify(sc.capabilities.drop) === '["ALL"]', 'capabilities must drop ALL');
	need(sc.seccompProfile && sc.seccompProfile.type === 'RuntimeDefault', 'container seccompProfile must be RuntimeDefault');
	const pre = c.lifecycle && c.lifecycle.preStop;
	let sleep = NaN;
	if (pre && pre.exec && pre.exec.command && pre.exec.command[0] === 'sleep') sleep = Number(pre.exec.command[1]);
	if (pre && pre.sleep) sleep = Number(pre.sleep.seconds);
	need(sleep > 0, 'preStop must sleep');
	const drain = seconds(env.CLASHD_DRAIN_TIMEOUT ? env.CLASHD_DRAIN_TIMEOUT.value : '20s');
	need(sleep + drain < pod.terminationGracePeriodSeconds,
		`preStop sleep (${sleep} s) + drain timeout (${drain} s) must end before terminationGracePeriodSeconds`);

	const byKind = (k) => all.filter((x) => x.doc.kind === k).map((x) => x.doc);
	const svc = byKind('Service');
	need(svc.some((s) => Object.entries(s.spec.selector || {}).every(([k, v]) => labels[k] === v) &&
		(s.spec.ports || []).some((p) => p.targetPort === 'http' || (port && p.targetPort === port.containerPort))),
		'no Service selects its pods on the http port');
	const hpa = byKind('HorizontalPodAutoscaler');
	need(hpa.some((h) => h.apiVersion === 'autoscaling/v2' && h.spec.scaleTargetRef.kind === 'Deployment' &&
		h.spec.scaleTargetRef.name === d.metadata.name && h.spec.minReplicas >= 2 &&
		(h.spec.metrics || []).some((m) => m.type === 'Resource' && m.resource.name === 'cpu')),
		'no autoscaling/v2 HPA on CPU for it with minReplicas >= 2');
	checkRedis(file, env.CLASHD_STORE_REDIS && env.CLASHD_STORE_REDIS.value, all, need);
	const pdb = byKind('PodDisruptionBudget');
	need(pdb.some((p) => p.apiVersion === 'policy/v1' && p.spec.minAvailable === 1 &&
		Object.entries(p.spec.selector.matchLabels || {}).every(([k, v]) => labels[k] === v)),
		'no policy/v1 PodDisruptionBudget with minAvailable 1 for its pods');
}

// ---- the shared store (Redis) ---------------------------------------------------

/* A Redis command line: maxmemory set, allkeys-lru, no persistence. */
function redisArgsOk(args) {
	const at = (k) => { const i = args.indexOf(k); return i >= 0 ? String(args[i + 1]) : undefined; };
	return /^\d+(mb|gb)$/.test(at('--maxmemory') || '') && at('--maxmemory-policy') === 'allkeys-lru' &&
		at('--save') === '' && at('--appendonly') === 'no';
}

function checkRedis(file, url, all, need) {
	const m = String(url || '').match(/^redis:\/\/([a-z0-9-]+):(\d+)$/);
	need(m, `CLASHD_STORE_REDIS must name the shared store's Service (redis://NAME:PORT), not ${url}`);
	if (!m) return;
	const svc = all.map((x) => x.doc).find((d) => d.kind === 'Service' && d.metadata.name === m[1]);
	need(svc, `no Service ${m[1]} for CLASHD_STORE_REDIS`);
	if (!svc) return;
	const port = (svc.spec.ports || []).find((p) => p.port === Number(m[2]));
	need(port, `Service ${m[1]} has no port ${m[2]}`);
	const sts = all.map((x) => x.doc).find((d) => d.kind === 'StatefulSet' &&
		Object.entries(svc.spec.selector || {}).every(([k, v]) => (d.spec.template.metadata.labels || {})[k] === v));
	need(sts, `no StatefulSet's pods behind Service ${m[1]}`);
	if (!sts) return;
	const c = (sts.spec.template.spec.containers || [])[0] || {};
	need((c.ports || []).some((p) => p.containerPort === 6379 && port && (p.name === port.targetPort || p.containerPort === port.targetPort)),
		`Service ${m[1]} does not reach Redis's port`);
	need(redisArgsOk(c.args || []), 'Redis must run with --maxmemory, --maxmemory-policy allkeys-lru, --save "" and --appendonly no');
	need(c.resources && c.resources.limits && c.resources.limits.memory, 'Redis needs a memory limit');
	const sc = c.securityContext || {};
	need(sc.readOnlyRootFilesystem === true && sc.allowPrivilegeEscalation === false &&
		sc.capabilities && JSON.stringify(sc.capabilities.drop) === '["ALL"]', 'Redis: the restricted securityContext');
}

// ---- compose -------------------------------------------------------------------

function checkCompose(file, doc) {
	const need = (cond, msg) => { if (!cond) problem(file, msg); };
	const services = doc.services || {};
	const haproxyCfg = read('deploy/haproxy/haproxy.cfg');
	const replicas = Object.keys(services).filter((n) => n.startsWith('clashd-'));
	need(replicas.length === 3, `three clashd replicas, not ${replicas.length}`);
	// One request is never replayed onto every replica: a
	// request that killed one must not be sent on to kill them all.
	// Every retries and retry-on line (the defaults' and any backend's).
	const retriesAll = [...haproxyCfg.matchAll(/^\s*retries\s+(\d+)/gm)].map((m) => Number(m[1]));
	need(retriesAll.length > 0, 'haproxy.cfg: no retries line');
	for (const retries of retriesAll)
		need(retries + 1 < replicas.length, `haproxy.cfg: retries ${retries} sends one request to all ${replicas.length} replicas`);
	for (const m of haproxyCfg.matchAll(/^\s*retry-on\s+(.*)$/gm)) {
		const retryOn = m[1].split(/\s+/);
		for (const bad of ['all-retryable-errors', '504', 'response-timeout'])
			need(!retryOn.includes(bad), `haproxy.cfg: retry-on ${bad} replays queries that outran or killed a replica`);
	}
	// Each backend (by least connections, and hashed on X-Clashd-Shape):
	// every replica as a server; a hash is consistent (a replica lost
	// moves only its share of the keys); the retry goes elsewhere.
	const sections = haproxyCfg.split(/^(?=\S)/m).filter((sec) => !/^\s*#/.test(sec));
	const defaultsSec = sections.find((sec) => sec.startsWith('defaults')) || '';
	const backends = sections.filter((sec) => sec.startsWith('backend '));
	need(backends.length > 0, 'haproxy.cfg: no backend');
	for (const b of backends) {
		const name = b.split(/\s+/)[1];
		for (const n of replicas)
			need(new RegExp(`^\\s*server ${n} "\\$\\{CLASHD_\\d-${n}:`, 'm').test(b), `haproxy.cfg: backend ${name} has no server ${n}`);
		if (/^\s*balance\s+(hdr|uri|url_param|source|hash)/m.test(b))
			need(/^\s*hash-type\s+consistent/m.test(b), `haproxy.cfg: backend ${name} hashes without hash-type consistent`);
		need(/^\s*option\s+redispatch/m.test(b) || /^\s*option\s+redispatch/m.test(defaultsSec),
			`haproxy.cfg: backend ${name} has no option redispatch`);
	}
	for (const n of replicas) {
		const s = services[n];
		need(s.build && path.resolve(path.dirname(file), s.build.context) === root, `${n}: not built from the repository's Dockerfile`);
		const env = s.environment || {};
		for (const k of Object.keys(env)) need(clashdEnv.has(k), `${n}: ${k} is not a clashd variable`);
		// Behind HAProxy every request comes from its address.
		for (const k of ['CLASHD_MAX_CONNECTIONS_PER_CLIENT', 'CLASHD_MAX_QUEUE_PER_CLIENT'])
			need(env[k] === '0', `${n}: ${k} must be "0" behind HAProxy (one client address for all)`);
		const port = String(env.CLASHD_LISTEN || ':8080').split(':').pop();
		const m = haproxyCfg.match(new RegExp(`server ${n} "\\$\\{CLASHD_\\d-([^}]+)\\}"`));
		need(m && m[1] === `${n}:${port}`, `${n}: haproxy.cfg has no server ${n} defaulting to ${n}:${port}`);
		need(s.read_only === true && s.user === '10001:10001', `${n}: read_only and user 10001:10001 expected`);
		const grace = seconds(s.stop_grace_period || '10s');
		need(grace > seconds(env.CLASHD_DRAIN_TIMEOUT || '20s'), `${n}: stop_grace_period must exceed the drain timeout`);
	}
	const r = services.redis;
	need(r && redisArgsOk((r.command || []).slice(1)) && r.mem_limit && r.read_only === true,
		'a redis service with --maxmemory, allkeys-lru, no persistence, a mem_limit and read_only');
	for (const n of replicas)
		need((services[n].environment || {}).CLASHD_STORE_REDIS === 'redis://redis:6379',
			`${n}: CLASHD_STORE_REDIS must be redis://redis:6379`);
	const h = services.haproxy;
	need(h, 'no haproxy service');
	if (h) {
		const vol = (h.volumes || []).find((v) => String(v).includes('haproxy.cfg'));
		need(vol && path.resolve(path.dirname(file), String(vol).split(':')[0]) === path.join(root, 'deploy/haproxy/haproxy.cfg'),
			'haproxy does not mount deploy/haproxy/haproxy.cfg');
		for (const n of replicas)
			need(h.depends_on && h.depends_on[n], `haproxy does not depend on ${n}`);
	}
}

// ---- main ----------------------------------------------------------------------

const k8sDir = path.join(root, 'deploy', 'k8s');
const all = [];
for (const f of fs.readdirSync(k8sDir).filter((x) => x.endsWith('.yaml')).sort()) {
	const file = path.join('deploy', 'k8s', f);
	for (const d of YAML.parseAllDocuments(fs.readFileSync(path.join(k8sDir, f), 'utf8'))) {
		if (d.errors.length) { problem(file, d.errors[0].message); continue; }
		const doc = d.toJSON();
		if (doc) all.push({ file, doc });
	}
}
let valid = 0;
for (const { file, doc } of all) valid += validate(file, doc) ? 1 : 0;
for (const { file, doc } of all) if (doc.kind === 'Deployment') checkDeployment(file, doc, all);
const kinds = all.map((x) => x.doc.kind);
for (const k of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'StatefulSet'])
	if (!kinds.includes(k)) problem('deploy/k8s', `no ${k}`);

const composeFile = path.join(root, 'deploy', 'compose', 'docker-compose.yml');
const compose = YAML.parse(fs.readFileSync(composeFile, 'utf8'), { merge: true });
checkCompose(composeFile, compose);

if (problems.length) {
	for (const p of problems) console.error(`check-manifests: ${p}`);
	console.error(`check-manifests: FAILED: ${problems.length} problem(s)`);
	process.exit(1);
}
console.log(`check-manifests: deploy/k8s: ${all.length} objects (${kinds.join(', ')}) valid against the ` +
	`Kubernetes schema with no unknown member (${valid}/${all.length}), and the Deployment follows the ` +
	`operational rules with its shared Redis; deploy/compose: 3 replicas behind haproxy with ` +
	`deploy/haproxy/haproxy.cfg, sharing a redis`);
