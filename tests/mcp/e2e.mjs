// End-to-end test of `last30days mcp` through the official MCP TypeScript SDK.
// Started by tests/cli/mcp_sdk_test.cpp, which runs the fake upstreams and checks
// afterwards what they saw. Reads a Claude-Desktop-style config ({"mcpServers": ...})
// the way a host does, prints a transcript, and exits non-zero on the first failure.
//   env: L30_MCP_CONFIG (config file), L30_FAKE_BASE (research fake, for /__control),
//        L30_BIN (the binary, to compare with `--emit json`)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const config = JSON.parse(readFileSync(process.env.L30_MCP_CONFIG, 'utf8'));
const fakeBase = process.env.L30_FAKE_BASE;
const say = (line) => console.log(line);
const event = (obj) => console.log('EVENT ' + JSON.stringify(obj));
const errors = [];

async function connect(serverName) {
  const server = config.mcpServers[serverName];
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: server.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'last30days-e2e', version: '1.0.0' });
  client.onerror = (e) => errors.push(`${serverName}: ${e.message}`);
  await client.connect(transport);
  say(`-> initialize (${serverName})`);
  say(`<- server ${JSON.stringify(client.getServerVersion())}`);
  return { client, transport, stderr: () => stderr };
}

const control = async () => (await fetch(`${fakeBase}/__control`)).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function step(name, fn) {
  const t0 = Date.now();
  await fn();
  say(`ok ${name} (${Date.now() - t0} ms)`);
}

const { client, transport, stderr } = await connect('last30days');

await step('tools/list', async () => {
  const { tools } = await client.listTools();
  say(`<- tools: ${tools.map((t) => t.name).join(', ')}`);
  assert.deepEqual(tools.map((t) => t.name).sort(), ['discover', 'discover_finalize', 'discover_nominate', 'library_search', 'research']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.ok(t.outputSchema, `${t.name} declares an outputSchema`);
  }
  const research = tools.find((t) => t.name === 'research');
  assert.deepEqual(research.inputSchema.required, ['topic']);
  for (const arg of ['no_compare', 'plan', 'store', 'limit']) assert.ok(research.inputSchema.properties[arg], arg);
  // store: true writes the research store: research does not claim to be read-only.
  assert.equal(research.annotations.readOnlyHint, false);
  assert.equal(research.annotations.destructiveHint, false);
  assert.equal(tools.find((t) => t.name === 'discover').annotations.readOnlyHint, true);
});

await step('research with progress, same object as --emit json', async () => {
  const args = { topic: 'tokio runtime', as_of: '2026-11-29', days: 30 };
  const progress = [];
  say(`-> tools/call research ${JSON.stringify(args)} (progressToken)`);
  const res = await client.callTool({ name: 'research', arguments: args }, undefined, {
    onprogress: (p) => progress.push(p),
    timeout: 90000,
  });
  for (const p of progress) say(`<- notifications/progress ${p.progress}/${p.total}: ${p.message}`);
  assert.equal(res.isError, false);
  const report = res.structuredContent;
  assert.equal(report.kind, 'research');
  assert.equal(report.schema_version, 1);
  assert.deepEqual(report.window, { from: '2026-10-30', to: '2026-11-29', days: 30 });
  const sources = Object.keys(report.source_status).length;  // every registered source
  assert.ok(sources >= 7, `${sources} sources`);
  assert.ok(report.items.length > 0 && report.clusters.length > 0);
  // One notification per source, increasing, all before the result (the SDK drops and
  // reports late ones as errors, checked at the end).
  assert.equal(progress.length, sources, JSON.stringify(progress) + " errors: " + JSON.stringify(errors));
  progress.forEach((p, i) => { assert.equal(p.progress, i + 1); assert.equal(p.total, sources); });
  const brief = text(res);
  assert.match(brief, /^# last30days: tokio runtime/);
  say('<- result: structuredContent kind=research, ' + `${report.items.length} items in ${report.clusters.length} stories; the brief:`);
  for (const line of brief.split('\n').slice(0, 24)) say('   | ' + line);

  const server = config.mcpServers.last30days;
  const cli = spawnSync(process.env.L30_BIN, [args.topic, '--as-of', args.as_of, '--days', '30', '--emit', 'json'], {
    env: { PATH: process.env.PATH, ...server.env }, encoding: 'utf8',
  });
  assert.equal(cli.status, 0, cli.stderr);
  const fromCli = JSON.parse(cli.stdout);
  const strip = (r) => { const c = structuredClone(r); delete c.generated_at; for (const s of Object.values(c.source_status)) delete s.elapsed_ms; return c; };
  assert.deepEqual(strip(report), strip(fromCli), 'structuredContent is the --emit json object');
});

await step('a comparison topic answers with kind comparison', async () => {
  const res = await client.callTool({ name: 'research', arguments: { topic: 'tokio vs async-std', as_of: '2026-11-29', sources: ['github', 'hackernews'] } });
  assert.equal(res.isError, false, text(res));
  assert.equal(res.structuredContent.kind, 'comparison');
  assert.deepEqual(res.structuredContent.entities.map((e) => e.name), ['tokio', 'async-std']);
  say(`<- comparison of ${res.structuredContent.entities.length} entities, ${res.structuredContent.shared_stories?.length ?? 0} shared stories`);
});

await step('bad arguments are tool errors with a message', async () => {
  const cases = [
    [{}, /"topic" is required/],
    [{ topic: '   ' }, /"topic" must not be empty/],
    [{ topic: 'x', days: 0 }, /"days" must be between 1 and 365/],
    [{ topic: 'x', days: -3 }, /"days" must be between 1 and 365 \(got -3\)/],
    [{ topic: 'x', as_of: '1969-12-31' }, /"as_of" must be a date YYYY-MM-DD from 1970-01-01/],
    [{ topic: 'Kramer vs. Kramer' }, /set "no_compare": true/],
    [{ topic: 'x', no_compare: 'yes' }, /"no_compare" must be true or false/],
    [{ topic: 'x', plan: 'tokio' }, /"plan" must be an object/],
    [{ topic: 'x', plan: { synonyms: { x: 'y' } } }, /plan: synonyms for 'x' must be an array/],
    [{ topic: 'x', limit: 0 }, /"limit" must be between 1 and 100/],
    [{ topic: 'x', days: 'seven' }, /"days" must be an integer/],
    [{ topic: 'x', sources: ['nope'] }, /unknown source 'nope'/],
    [{ topic: 'x', depth: 'bottomless' }, /"depth" must be quick, default or deep/],
    [{ topic: 'x', as_of: '2999-01-01' }, /as_of is in the future/],
    [{ topic: 'x', bogus: true }, /unknown argument "bogus"/],
  ];
  for (const [args, expected] of cases) {
    const res = await client.callTool({ name: 'research', arguments: args });
    say(`-> research ${JSON.stringify(args)}  <- isError: ${text(res)}`);
    assert.equal(res.isError, true);
    assert.match(text(res), expected);
  }
  const lib = await client.callTool({ name: 'library_search', arguments: { query: 'tokio AND "', limit: 5 } });
  say(`-> library_search  <- ${lib.isError ? 'isError: ' + text(lib) : lib.structuredContent.results.length + ' results'}`);
  assert.equal(lib.isError, false);
  assert.equal(lib.structuredContent.kind, 'library');
  assert.equal(lib.structuredContent.query, 'tokio AND "');
  assert.ok(Array.isArray(lib.structuredContent.results));
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => {
    say(`-> no_such_tool  <- error ${e.code}: ${e.message}`);
    return e.code === -32602 && /unknown tool/.test(e.message);
  });
  await client.ping();
});


// Every http(s) URL of a Markdown text, as the link syntax holds it.
const urlsOf = (md) => {
  const out = [];
  for (const m of md.matchAll(/\]\(<([^>\s]+)>\)/g)) out.push(m[1]);
  for (const m of md.matchAll(/\]\((https?:[^)\s<>]+)\)/g)) out.push(m[1]);
  for (const m of md.matchAll(/(?<!\]\()<(https?:[^>\s]+)>/g)) out.push(m[1]);
  return out;
};
const stringsOf = (v, out = new Set()) => {
  if (typeof v === 'string') out.add(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsOf(x, out);
  return out;
};

await step('the brief cites the URLs of structuredContent byte for byte', async () => {
  const res = await client.callTool({ name: 'research', arguments: { topic: 'tokio runtime', as_of: '2026-11-29' } });
  assert.equal(res.isError, false, text(res));
  const urls = urlsOf(text(res));
  const known = stringsOf(res.structuredContent);
  assert.ok(urls.length >= 5, `${urls.length} links in the brief`);
  for (const u of urls) assert.ok(known.has(u), `the brief's ${u} is not a URL of structuredContent`);
  const underscored = urls.filter((u) => u.includes('_'));
  assert.ok(underscored.length > 0, 'a URL with "_" is cited as it is');
  say(`<- ${urls.length} links, all in structuredContent (e.g. ${underscored[0]})`);
});

await step('no_compare researches "A vs B" as one topic', async () => {
  const args = { topic: 'tokio vs async-std', as_of: '2026-11-29', sources: ['github', 'hackernews'], no_compare: true };
  const res = await client.callTool({ name: 'research', arguments: args });
  assert.equal(res.isError, false, text(res));
  assert.equal(res.structuredContent.kind, 'research');
  assert.equal(res.structuredContent.topic, 'tokio vs async-std');
  say(`-> research ${JSON.stringify(args)}  <- kind ${res.structuredContent.kind}`);
});

await step('plan with synonyms is the host plan of the run', async () => {
  const plan = { intent: 'news', sub_queries: [{ text: 'tokio runtime', weight: 1 }, { text: 'tokio scheduler', weight: 0.6 }],
                 synonyms: { tokio: ['tokio-rs'] }, source_weights: { hackernews: 1.5 } };
  const res = await client.callTool({ name: 'research', arguments: { topic: 'tokio runtime', as_of: '2026-11-29', plan } });
  assert.equal(res.isError, false, text(res));
  const p = res.structuredContent.plan;
  say(`<- plan ${JSON.stringify(p)}`);
  assert.equal(p.from_host, true);
  assert.deepEqual(p.sub_queries.map((q) => q.query), ['tokio runtime', 'tokio scheduler']);
  assert.deepEqual(p.synonyms.tokio, ['tokio-rs'], 'the synonyms are the host\'s');
});

await step('limit keeps the best N stories and their items', async () => {
  const res = await client.callTool({ name: 'research', arguments: { topic: 'tokio runtime', as_of: '2026-11-29', limit: 2 } });
  assert.equal(res.isError, false, text(res));
  const r = res.structuredContent;
  assert.equal(r.clusters.length, 2);
  const kept = new Set(r.clusters.flatMap((c) => c.items));
  assert.ok(r.items.length > 0 && r.items.every((it) => kept.has(it.id)), 'only the items of the kept stories');
  say(`<- ${r.clusters.length} stories, ${r.items.length} items`);
});

await step('store: true, then library_search finds that run', async () => {
  const res = await client.callTool({ name: 'research', arguments: { topic: 'tokio runtime', as_of: '2026-11-29', store: true, sources: ['lobsters', 'github'] } });
  assert.equal(res.isError, false, text(res));
  assert.equal(res.structuredContent.history.runs_before, 0, JSON.stringify(res.structuredContent.history));
  const urls = new Set(res.structuredContent.items.map((it) => it.url));
  const lib = await client.callTool({ name: 'library_search', arguments: { query: 'tokio', limit: 20 } });
  assert.equal(lib.isError, false, text(lib));
  const found = lib.structuredContent.results.filter((x) => urls.has(x.url));
  say(`<- library_search: ${lib.structuredContent.results.length} results, ${found.length} from the stored run`);
  assert.ok(found.length > 0, 'the stored run is in the library');
});

await step('two calls at once', async () => {
  const sources = ['hackernews', 'github', 'lobsters', 'stackexchange', 'polymarket'];
  const order = [];
  const t0 = Date.now();
  // The fake holds every answer about "slow" until it is released. The slow call starts
  // first and is seen waiting at the fake; the fast call is answered while it still waits
  // (a server running one call at a time could not), and only then is the slow one
  // released. Nothing here depends on how fast either side is.
  const slow = client.callTool({ name: 'research', arguments: { topic: 'slow tokio', as_of: '2026-11-29', sources } }, undefined, { timeout: 60000 })
    .then((r) => { order.push('slow'); return r; });
  let c;
  for (let i = 0; i < 2000; i++) { c = await control(); if (c.slow_held >= 1) break; await sleep(10); }
  assert.ok(c.slow_held >= 1, `the slow call's requests reached the fake: ${JSON.stringify(c)}`);
  const f = await client.callTool({ name: 'research', arguments: { topic: 'tokio runtime', as_of: '2026-11-29', sources } }, undefined, { timeout: 60000 });
  order.push('fast');
  c = await control();
  say(`<- the fast call answered while ${c.slow_held} of the slow call's requests waited at the fake`);
  assert.deepEqual(order, ['fast'], 'the slow call was still running when the fast one was answered');
  assert.ok(c.slow_held >= 1, `the slow call's requests were still waiting: ${JSON.stringify(c)}`);
  await fetch(`${fakeBase}/__release`);
  const s = await slow;
  say(`<- finished in order ${order.join(', ')} after ${Date.now() - t0} ms`);
  assert.equal(s.isError, false);
  assert.equal(f.isError, false);
  assert.equal(s.structuredContent.topic, 'slow tokio');
  assert.equal(f.structuredContent.topic, 'tokio runtime');
  assert.deepEqual(order, ['fast', 'slow']);
});

await step('cancel a call whose upstream hangs', async () => {
  const ac = new AbortController();
  const sources = ['hackernews', 'github', 'stackexchange', 'polymarket'];
  const call = client.callTool({ name: 'research', arguments: { topic: 'hangs forever', sources } }, undefined, { signal: ac.signal, timeout: 60000 });
  const rejected = assert.rejects(call);
  let c;
  for (let i = 0; i < 200; i++) { c = await control(); if (c.open_hung >= 4) break; await sleep(25); }
  assert.ok(c.open_hung >= 4, `four hung requests reached the fake: ${JSON.stringify(c)}`);
  event({ cancel_at: Date.now(), hung: c.open_hung });
  say(`-> notifications/cancelled (${c.open_hung} transfers hanging at the fake)`);
  ac.abort('the user changed their mind');
  await rejected;
  for (let i = 0; i < 60; i++) { c = await control(); if (c.open_hung === 0) break; await sleep(25); }
  say(`<- the fake sees ${c.open_hung} hung connections still open`);
  assert.equal(c.open_hung, 0);
  // No result may come for the cancelled id (the SDK would report an unknown id).
  await sleep(500);
  const after = await client.callTool({ name: 'research', arguments: { topic: 'tokio runtime', as_of: '2026-11-29', sources: ['github'] } });
  assert.equal(after.isError, false, 'the server goes on serving');
});

await client.close();
say('-> stdin closed');

await step('discover against the listings fake', async () => {
  const d = await connect('last30days-discovery');
  const progress = [];
  const res = await d.client.callTool({ name: 'discover', arguments: { budget_seconds: 3 } }, undefined, { onprogress: (p) => progress.push(p), timeout: 90000 });
  for (const p of progress) say(`<- notifications/progress ${p.progress}: ${p.message}`);
  assert.equal(res.isError, false, text(res));
  assert.equal(res.structuredContent.kind, 'discovery');
  assert.ok(res.structuredContent.results.length > 0);
  assert.ok(progress.some((p) => p.message.startsWith('listing ')));
  assert.ok(progress.some((p) => p.message.startsWith('enriched ')));
  say(`<- ${res.structuredContent.results.length} topics: ${res.structuredContent.results.map((r) => r.name).slice(0, 3).join(' | ')} ...`);
  await d.client.close();
});

await step('the host-judged protocol: discover_nominate, then discover_finalize', async () => {
  const d = await connect('last30days-discovery');
  const nom = await d.client.callTool({ name: 'discover_nominate', arguments: {} });
  assert.equal(nom.isError, false, text(nom));
  const b = nom.structuredContent;
  assert.equal(b.kind, 'discovery-nominations');
  assert.ok(b.nominations.length >= 3, JSON.stringify(b.nominations));
  assert.match(text(nom), /discover_finalize/);
  assert.doesNotMatch(text(nom), /--judgments/);
  say(`<- bundle ${b.bundle_id}: ${b.nominations.map((n) => n.id + ' ' + n.name).slice(0, 4).join(' | ')} ...`);
  const [junk, renamed] = b.nominations;  // junk: held to the stricter floor (2 sources), not dropped
  const judgments = [{ id: junk.id, junk: true }, { id: renamed.id, name: 'Judged by the host', worthiness: 100 }];
  const bad = await d.client.callTool({ name: 'discover_finalize', arguments: { bundle_id: b.bundle_id, judgments: [{ id: 'n999' }] } });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /'n999' is not a nomination/);
  const fin = await d.client.callTool({ name: 'discover_finalize', arguments: { bundle_id: b.bundle_id, judgments, budget_seconds: 5 } });
  assert.equal(fin.isError, false, text(fin));
  const names = fin.structuredContent.results.map((r) => r.name);
  say(`<- finalized: ${names.join(' | ')}`);
  assert.equal(fin.structuredContent.kind, 'discovery');
  assert.ok(names.includes('Judged by the host'), 'the host\'s name and worthiness are applied');
  assert.ok(!names.includes(renamed.name), 'the nomination answers to the host\'s name only');
  await d.client.close();
});

await step('discover answers within the SDK\'s default request timeout when enrichment hangs', async () => {
  const d = await connect('last30days-slow-discovery');
  const t0 = Date.now();
  // No timeout option: the SDK's default (60 s) applies. The fake hangs every search,
  // so enrichment runs to its budget.
  const res = await d.client.callTool({ name: 'discover', arguments: {} });
  const took = Date.now() - t0;
  assert.equal(res.isError, false, text(res));
  assert.ok(took < 60000, `${took} ms`);
  say(`<- discovery in ${took} ms, ${res.structuredContent.results.length} results, enrichment ${JSON.stringify(res.structuredContent.enrichment)}`);
  event({ slow_discovery_ms: took });
  await d.client.close();
});

assert.deepEqual(errors, [], 'the client saw no protocol errors (late progress, unknown ids, invalid output)');
void transport; void stderr;
say('ALL OK');
