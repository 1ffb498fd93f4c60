// Topology files and their resolution for a job (seed 004's machine tree): the format's types, the
// resolved tree and its description. Reading and resolving are the engine's (src/mpi/files.ts).
// See docs/topology.md.
export * from './file';
export * from './resolve';
export * from './describe';
