// usage: node profile-inclusive.js <file.cpuprofile> [regex] [rows]: inclusive time per function whose location matches regex.
// inclusive time per function (top frames within n8n packages)
const fs=require('fs');const p=JSON.parse(fs.readFileSync(process.argv[2]));
const byId=new Map(p.nodes.map(n=>[n.id,n]));const parent=new Map();
for(const n of p.nodes) for(const c of (n.children||[])) parent.set(c,n.id);
const incl=new Map();
for(let i=0;i<p.samples.length;i++){const d=p.timeDeltas[i]||0;let id=p.samples[i];const seen=new Set();
 while(id!==undefined){const n=byId.get(id);const cf=n.callFrame;const key=cf.functionName+' '+cf.url.replace(/.*node_modules\//,'')+':'+cf.lineNumber;
  if(!seen.has(key)){seen.add(key);incl.set(key,(incl.get(key)||0)+d);} id=parent.get(id);}}
const re=new RegExp(process.argv[3]||'.');
console.log([...incl].filter(([k])=>re.test(k)).sort((a,b)=>b[1]-a[1]).slice(0,+process.argv[4]||40).map(([k,v])=>(v/1000).toFixed(0).padStart(7)+' '+k).join('\n'));
