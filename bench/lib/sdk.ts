/**
 * payorch as the bench sees it: the built package (`dist/`, through the package's own exports map),
 * exactly what users install. Typechecking resolves the same names to src/ (tsconfig paths).
 */
import * as payorch from 'payorch';
import * as sandbox from 'payorch/sandbox';

export { payorch, sandbox };
