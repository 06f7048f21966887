# The flipbook service as a container image: Debian bookworm-slim, the service's runtime only
# (poppler-utils and qpdf, the project's own Node 24 and its production dependencies; no dev
# dependencies, no compilers), run as a non-root user with its data in /data.
#
#   docker build -t flipbook .          (or: podman build --format docker -t flipbook .)
#   docker run -p 8080:8080 -v flipbook-data:/data flipbook
#
# The embedded PostgreSQL is the default store (in /data); for production set DATABASE_URL and
# pass the bucket's flags after the image name (docs/deploy.md, "The container image").

# --- build: the production dependencies, installed by the project's own Node 24 --------------
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Debian's npm under its Node 18 skips sharp's prebuilt binary (sharp wants Node 20): install the
# project's Node 24 (the `node` package) first, then everything else with it.
RUN npm install --no-audit --no-fund --no-save --ignore-scripts=false node@$(node -p "require('./package.json').dependencies.node") \
 && PATH=/app/node_modules/.bin:$PATH npm install --omit=dev --no-audit --no-fund --loglevel=error \
 && node_modules/.bin/node --version
COPY bin ./bin
COPY src ./src
COPY projections ./projections
COPY packages/cli ./packages/cli
RUN rm -rf packages/cli/dist

# --- runtime ----------------------------------------------------------------------------------
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends poppler-utils qpdf ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 flipbook \
 && useradd --system --uid 10001 --gid flipbook --home-dir /data --shell /usr/sbin/nologin flipbook \
 && mkdir -p /data && chown flipbook:flipbook /data
COPY --from=build /app /app
WORKDIR /app
USER flipbook
# FLIPBOOK_DATA_DIR: the default --data-dir of serve and of every admin command run with
# `docker exec` (so `flipbook workspace create ...` finds the store); PORT: serve's default --port.
ENV NODE_ENV=production FLIPBOOK_DATA_DIR=/data PORT=8080 PATH=/app/bin:$PATH
VOLUME /data
EXPOSE 8080
# SIGTERM: stops accepting, lets requests finish (--grace, 30 s), hands renders back, stops the
# embedded database. Give `docker stop` longer than the grace (docker stop -t 45).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/app/node_modules/.bin/node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/app/bin/flipbook", "serve", "--host", "0.0.0.0"]
CMD []
