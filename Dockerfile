# The service as operators deploy it: the bundle `npm start` runs (scripts/bundle-service.mjs), its
# runtime packages, a non-root user, the Node process as PID 1 with an exec-form entry point.
# docs/operations.md §1 ("In a container"); compose.yaml runs it beside PostgreSQL.
#
#   docker build -t payments-gaming .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://… -e AUTH_JWT_SECRET=… … payments-gaming

# Node 24, as pinned in package.json (the `node` dev dependency the scripts run on).
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# The manifests first, so that the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY packages/domain/package.json packages/domain/
COPY packages/api/package.json packages/api/
COPY packages/adapters/package.json packages/adapters/
COPY packages/composition/package.json packages/composition/
COPY apps/http/package.json apps/http/
COPY apps/cli/package.json apps/cli/
COPY tools/openapi-typegen/package.json tools/openapi-typegen/
# npm ci's postinstall applies these to node_modules (patch-package; docs/effect-patch.md).
COPY patches/ patches/
RUN npm ci --no-audit --no-fund
COPY . .
# The bundle needs the dev dependencies (rolldown); the image keeps only the runtime packages.
RUN npm run bundle && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# MALLOC_ARENA_MAX=2: as npm start sets it (docs/operations.md §1): glibc's per-thread malloc arenas
# held 2-18 MiB more at the benchmark's peak; the price is about 3 % of the requests per second.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# The bundle (a link to the build's own directory, copied as it is) holds our code and Effect.
COPY --from=build /app/apps/http/dist ./apps/http/dist
# The image's own `node` user (uid 1000): nothing runs as root.
USER node
EXPOSE 8080
# Exec form: Node is PID 1 and receives the orchestrator's SIGTERM itself (graceful shutdown, up to
# 20 s for requests in flight). The flags are `npm start`'s (docs/operations.md §1).
ENTRYPOINT ["node", "--max-semi-space-size=12", "--heap-growing-percent=30", "--no-allocation-site-pretenuring", "apps/http/dist/bundle/main.js"]
