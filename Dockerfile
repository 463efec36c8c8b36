# One image for the web process (the default command) and the webhook worker (`node bin/worker.ts`).

# The console's bundle (esbuild, Preact) is built with the dev dependencies, in a stage of its own: the image keeps
# only the hashed files it produces. The console imports lib/ (the event catalogue, the types of what the API
# answers), so the stage has it too.
FROM node:24-bookworm-slim AS console
WORKDIR /build
COPY package.json package-lock.json ./
COPY console ./console
COPY lib ./lib
# `npm install` runs the `prepare` script, which bundles the console into console/dist/.
RUN npm install --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# Every interface: the container's port is reachable only where it is published (`npm start` listens on loopback).
ENV HOST=0.0.0.0
# A young generation of at most 16 MiB per semi-space: V8's default lets it grow far larger under load, which
# costs about 100 MB of peak RSS and no throughput (bench/README.md). `npm start` passes the same flag.
ENV NODE_OPTIONS=--max-semi-space-size=16
# At most two malloc arenas: glibc gives threads arenas of their own (up to eight per core), and the memory the
# thread pool, V8's helper threads and the customizer's sandbox thread free stays resident in each. Two take about
# 15-20 MB off the peak under load at no CPU cost the bench can see (bench/README.md). `npm start` sets it too.
ENV MALLOC_ARENA_MAX=2
# Node keeps each module's stripped TypeScript and compiled code here, so a restart neither strips types again nor
# loads the type stripper (about 25 MB of resident memory). In the home of the user the service runs as, which no
# other user can write to (what is cached there is run). `npm start` keeps its cache in node_modules/.cache.
ENV NODE_COMPILE_CACHE=/home/node/.cache/node-compile-cache
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` with the committed lock, not `npm ci`: the lock is written on one platform and lists only the
# optional native packages that platform uses (see .ci/run), so `npm ci` refuses it everywhere else. With the
# lock present `npm install` still installs exactly its versions, adding the optional packages of the image's
# platform. Dev dependencies stay out: the base image is Node 24, which runs the TypeScript sources as they are.
# No scripts: `prepare` bundles the console, which the stage above did.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# Everything the service loads at run time; test/operations/image.test.ts starts the server from exactly these.
COPY app ./app
COPY lib ./lib
COPY adapters ./adapters
COPY extensions ./extensions
COPY routes ./routes
COPY bin ./bin
COPY --from=console /build/console/dist ./console/dist
# The SQLite store, when MONGODB_URI and REDIS_URL leave anything local: a volume the service's user owns.
ENV DATA_DIR=/data
RUN mkdir -m 0700 /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# Ready means every store answers (/readyz). The worker answers it on WORKER_PORT: compose asks it there.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The old generation grows to 1.5 times what a collection leaves live (V8 otherwise lets it reach about four times),
# which keeps far less garbage resident under load, for about 5 % more CPU; Node accepts this V8 flag only on the command line, not in NODE_OPTIONS.
# `npm start` and `npm run worker` pass the same (bench/README.md).
CMD ["node", "--heap-growing-percent=50", "bin/server.ts"]
