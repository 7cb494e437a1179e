// Svelte 5 compiles `<script lang="ts">` itself, so no preprocessor is needed. Every component here uses runes.
export default {};
