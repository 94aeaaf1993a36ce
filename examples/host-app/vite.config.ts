import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The page: built to dist/, which the backend (server/) serves next to its API.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
});
