// placeholder: registers the Vite module loader (filled by the harness core)
