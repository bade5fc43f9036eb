import type { UpstreamServices } from '../context.js';
import type { Router } from '../router.js';

export function register(_router: Router, _services: UpstreamServices) {}
