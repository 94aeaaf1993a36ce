// Every react test file: findBy… and waitFor wait up to 5 s, not Testing Library's 1 s. The
// files share two cores with the browser, PostgreSQL and pack suites in `npm test`, where a
// render that takes a second is load, not a failure; a broken component still fails, later.
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 5_000 });
