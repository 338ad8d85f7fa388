// Vitest ends its fork workers with SIGTERM, and a process ended by a signal never writes what --cpu-prof
// collected. Exiting on the signal instead writes it. For BENCH_VITEST_EXEC_ARGV (bench/README.md).
process.on('SIGTERM', () => process.exit(0))
