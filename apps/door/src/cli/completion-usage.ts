/** mur completion's usage: apart from the command, which reads every command's usage (command-help.ts) to offer their flags. */
export const COMPLETION_USAGE = `usage: mur completion bash|zsh|fish

Prints a script that completes mur's commands and each command's flags in that shell. Load it in the
shell's start-up file: bash: eval "$(mur completion bash)"; zsh: eval "$(mur completion zsh)" (after
compinit); fish: mur completion fish | source.`;
