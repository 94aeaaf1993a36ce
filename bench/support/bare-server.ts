// A bare Express app answering one route with a pre-serialized body: the ceiling to compare against.
import fs from 'node:fs';
import express from 'express';

const [bodyFile, method = 'GET', path = '/'] = process.argv.slice(2);
const body = fs.readFileSync(bodyFile!, 'utf8');
const app = express();
const handler = (_req: express.Request, res: express.Response) => {
  res.type('json').send(body);
};
if (method === 'POST') app.post(path, express.json(), handler);
else app.get(path, handler);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
