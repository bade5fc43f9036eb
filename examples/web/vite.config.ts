import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// babel-plugin-relay turns each graphql`…` tag into an import of the artifact relay-compiler wrote
// (src/__generated__), which holds the persisted document's id, never its text.
export default defineConfig({
  plugins: [react({ babel: { plugins: [['relay', { eagerEsModules: true, artifactDirectory: './src/__generated__' }]] } })],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 700 },
});
