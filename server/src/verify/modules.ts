import type Mysql2 from 'mysql2';
import type Pg from 'pg';
import type Ssh2 from 'ssh2';
import { lazy } from '../lazy';

// Loaded on the first verify, not at start: most requests never need them.
export const pg = lazy<typeof Pg>('pg');
export const mysql2 = lazy<typeof Mysql2>('mysql2');
export const ssh2 = lazy<typeof Ssh2>('ssh2');
