// What piscina loads in each render thread. piscina require()s its worker file before it tries
// import(), and Node 20's require() of an ES module can abort the whole process (a V8 fatal
// error, "IsGraphAsync must be used on an instantiated module", seen in CI) when a thread meets
// the module graph while it is still being instantiated. This file is CommonJS, so require()
// loads only it; the renderer (an ES module) comes in through a real import().
const loaded = import('./render-worker.js');

export = async function render(
  task: Parameters<Awaited<typeof loaded>['default']>[0],
): ReturnType<Awaited<typeof loaded>['default']> {
  const worker = await loaded;
  return worker.default(task);
};
