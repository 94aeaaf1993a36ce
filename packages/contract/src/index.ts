export * from './common';
export * from './data-source';
export * from './member';
export * from './openapi';
export * from './organization';
export * from './routes';
export * from './sso';
