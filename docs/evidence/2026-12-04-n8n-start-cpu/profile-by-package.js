// usage: node profile-by-package.js <file.cpuprofile>: self time per package (node_modules/<name>) or built-in, busiest first.
const fs=require('fs');const f=process.argv[2];
const p=JSON.parse(fs.readFileSync(f));
const byId=new Map(p.nodes.map(n=>[n.id,n]));
const self=new Map();
const dt=p.timeDeltas; let total=0;
for(let i=0;i<p.samples.length;i++){const n=byId.get(p.samples[i]);const d=dt[i]||0;total+=d;
 let url=n.callFrame.url||'('+n.callFrame.functionName+')';
 let key=url.replace(/^file:\/\//,'');
 const m=key.match(/node_modules\/((@[^/]+\/)?[^/]+)/g); if(m) key=m[m.length-1].replace('node_modules/','');
 else if(key.startsWith('node:')) key='node-internal'; 
 self.set(key,(self.get(key)||0)+d);}
const arr=[...self].sort((a,b)=>b[1]-a[1]).slice(0,30);
console.log('total ms',(total/1000).toFixed(0));
for(const [k,v] of arr) console.log((v/1000).toFixed(0).padStart(7),k);
