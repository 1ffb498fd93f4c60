// TOPOCOLL_* variables as the engine reads them (native/engine/config.cc): surrounding
// whitespace is trimmed, for every variable alike. The engine parses and checks the values
// (the addon's loadConfig); what TypeScript reads itself (file paths, the MPI to load) goes
// through here so that both see the same text.

/** The variable's value, trimmed; undefined when unset. */
export function envValue(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[name]?.trim();
}
