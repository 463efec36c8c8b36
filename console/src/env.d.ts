/** Stylesheets are bundled by esbuild into the entry's hashed CSS file. */
declare module '*.css';
