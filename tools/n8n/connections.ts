/**
 * Every request the tests send (fetch, in this process) opens its own connection. With kept-alive connections,
 * the client can pick an idle one just as n8n's server closes it (Node's 5 s keep-alive timeout) when this process
 * is slow, as on CI with four suites side by side: the request fails with "other side closed" or ECONNRESET
 * before n8n sees it. That is a fault of the test's client, not of n8n or the package.
 * The sandbox's webhook deliveries have their own agent (tools/sandbox/webhooks.ts), as the service would.
 */
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ pipelining: 0 }));
