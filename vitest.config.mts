import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/mpi/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // MPI jobs use both cores; running test files in parallel only makes them time out.
    fileParallelism: false,
    reporters: ['default'],
  },
});
