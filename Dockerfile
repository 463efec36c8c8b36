# The same image runs the web process (`npm start`) and the webhook worker (`npm run worker`).
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies stay out of the image; the base image already is Node 24.
RUN npm ci --omit=dev --no-audit --no-fund
COPY lib ./lib
COPY adapters ./adapters
COPY extensions ./extensions
COPY routes ./routes
COPY bin ./bin
USER node
EXPOSE 3000
CMD ["node", "bin/server.ts"]
