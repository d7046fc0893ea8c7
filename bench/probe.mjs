// The stall probe of `npm run bench`, in a process of its own (pinned beside wrk): asks
// GET /healthz every 5 ms on one kept-alive connection and, on SIGTERM, prints the worst
// latency seen in milliseconds. Run in the bench's own process it would count the bench's own
// work (receiving and decoding listings) as the store's stalls.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const url = process.argv[2];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let worst = 0;
let running = true;
process.on('SIGTERM', () => (running = false));
const once = () =>
  new Promise((resolve, reject) => {
    const start = performance.now();
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(performance.now() - start));
      })
      .on('error', reject);
  });
process.stdout.write('ready\n');
while (running) {
  worst = Math.max(worst, await once().catch(() => 0));
  await new Promise((resolve) => setTimeout(resolve, 5));
}
process.stdout.write(`${JSON.stringify({ worstMs: worst })}\n`);
