/** A benchmark script's end: its exit code (0 when every target was met), 1 and the error when it failed to run. */
export function exitWith(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
