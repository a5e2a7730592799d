// Prints the environment the suites give an n8n process (tools/n8n/n8n.ts, N8n.env), for one version and user folder, as shell exports.
import { installN8n, N8n } from '../../../tools/n8n/n8n';
const [version, home, tarball] = process.argv.slice(2);
const installDir = await installN8n(version, () => {});
const n8n = new N8n({ installDir, home, owner: { email: 'owner@probe.example.com', password: 'Probe-owner-Passw0rd!', firstName: 'P', lastName: 'O' }, port: 5799 });
await n8n.installPackage(tarball);
const env = n8n.env({ N8N_RUNNERS_BROKER_PORT: '5798', N8N_PORT: '5799' });
for (const [k, v] of Object.entries(env)) if (k !== 'NODE_COMPILE_CACHE') console.log(`export ${k}='${v}'`);
console.log(`export N8N_BIN='${installDir}/node_modules/n8n/bin/n8n'`);
