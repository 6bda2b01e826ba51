package gen

import (
	"slices"
	"strings"
)

// functionWords are the most frequent English words, most frequent first. They take the
// top ranks of the vocabulary, as they do in real prose, and bf drops most of them from
// queries, so they make the index big without making searches easy.
var functionWords = strings.Fields(`
the of and to a in is that for it on with as was be by this are at from or have an not
we but they which will can has all their been would more if there so when what one also
about into than only other some could them these then its our after should may no any out
up were had how each most both before because over through still those where while now
just very such same did does must between without during under again here why`)

// contentWords are ordered roughly from common to rare: a word's position is its rank
// among content words. Work language of a product team (planning, engineering, billing,
// operations, people) so that queries read like the ones users type.
var contentWords = strings.Fields(`
team work customer release time plan project week data change issue update service
review need use make support user report process meeting today question problem
account system design test production feature version payment invoice month number
decision note risk build deploy price client billing product status owner next date
order cost budget goal result access policy team-wide contract request point call
error support-ticket task document draft detail email message quarter rate target
ledger migration refund subscription engine schedule export pipeline rollback agenda
incident outage latency endpoint database index query cache search storage backup
restore security audit token session api server network cluster node queue worker
job event metric dashboard alert log trace config setting flag environment staging
region zone capacity traffic load limit quota usage growth revenue churn retention
renewal discount plan-change upgrade downgrade trial signup onboarding activation
cohort funnel conversion experiment variant analysis model forecast estimate sprint
backlog roadmap milestone deadline scope requirement proposal approval sign-off
stakeholder partner vendor supplier procurement legal compliance privacy consent
retention-policy regulation tax vat receipt statement balance credit debit posting
journal reconciliation payout transfer charge dispute chargeback fraud risk-score
currency exchange settlement bank card wallet checkout cart catalog inventory sku
shipment delivery warehouse return exchange-rate localization translation language
mobile ios android web frontend backend browser app screen page button form field
layout component style theme accessibility contrast font icon image video upload
download file folder archive attachment link share permission role group admin
owner-team member hire hiring interview candidate offer onboarding-plan manager
engineer designer analyst researcher writer lead director executive board investor
customer-success support-agent escalation sla response resolution satisfaction
survey feedback complaint request-form bug regression crash freeze timeout retry
backoff throttle spike drop leak memory cpu disk bandwidth throughput benchmark
profile bottleneck optimization refactor cleanup deprecation removal rewrite
upgrade-path dependency library package module repository branch merge commit
patch hotfix changelog tag pipeline-run test-suite coverage lint format check
review-comment approval-flow gate canary rollout percentage cohort-size holdout
baseline threshold anomaly detection monitor probe healthcheck uptime availability
durability consistency replication failover shard partition replica primary
secondary leader follower snapshot checkpoint compaction vacuum migration-script
schema column table row record field value key identifier reference lookup join
filter sort aggregate sum average median percentile histogram chart graph report-card
summary overview brief memo minutes action owner-list follow-up reminder calendar
invite agenda-item slot room office remote travel expense reimbursement payroll
salary bonus equity benefit vacation leave holiday offsite workshop training course
certification mentor feedback-loop retrospective standup demo kickoff planning
estimate-range confidence assumption constraint tradeoff option alternative choice
recommendation rationale context background motivation objective outcome impact
success failure lesson learning insight finding evidence source citation claim
hypothesis question-list answer explanation example template checklist runbook
playbook guide manual handbook wiki faq glossary definition term concept principle
guideline standard convention rule exception edge-case corner fallback default
override toggle switch mode state transition lifecycle stage phase step sequence
order-flow workflow automation script cron trigger webhook callback handler listener
subscriber publisher topic channel stream broker consumer producer offset lag backlog-size
message-bus event-bus kafka postgres redis elasticsearch kubernetes terraform docker
helm prometheus grafana sentry datadog pagerduty slack jira github gitlab figma notion
stripe adyen paypal salesforce hubspot zendesk intercom segment snowflake bigquery
airflow dbt looker tableau spark ruby golang typescript rust java kotlin swift
react vue graphql grpc rest json yaml csv parquet protobuf openapi oauth saml sso
mfa password secret certificate encryption key-rotation vault kms firewall vpn proxy
gateway load-balancer cdn dns domain subdomain ssl tls ingress egress sandbox
production-like staging-data fixture seed mock stub contract-test smoke integration
end-to-end unit flaky quarantine retry-policy idempotency deduplication ordering
exactly-once at-least-once delivery-guarantee backpressure rate-limiter circuit
breaker bulkhead timeout-budget error-rate success-rate apdex slo sli burn window
quarterly annual monthly weekly daily nightly hourly realtime batch incremental
full partial delta diff patch-level minor major breaking compatible legacy modern
prototype pilot beta general-availability launch sunset migration-window freeze-period
cutover rehearsal dry-run go-live signoff handover transition-plan backout
contingency risk-register mitigation severity priority impact-area blast-radius
postmortem timeline root-cause contributing-factor detection-time repair-time
customer-impact communication status-page announcement newsletter blog press
campaign segment-list audience persona journey touchpoint channel-mix attribution
acquisition paid organic referral affiliate partner-program reseller marketplace
pricing-page tier seat usage-based metered flat annual-plan monthly-plan enterprise
startup midmarket self-serve sales-led product-led procurement-review security-review
questionnaire soc gdpr hipaa pci iso dpa msa nda sow invoice-run dunning-step
reminder-email grace-period suspension reactivation write-off collection aging
receivable payable accrual deferral recognition close month-end year-end audit-trail
controller treasury cash runway burn-rate headcount hiring-plan org-chart reorg
team-charter ownership-map raci escalation-path on-call-rotation pager handoff
shift coverage backlog-grooming triage labeling severity-level bug-bash hackathon
innovation research-spike discovery user-interview usability study persona-map
heatmap session-replay analytics event-taxonomy tracking-plan instrumentation
data-quality lineage catalog-entry governance steward owner-of-record freshness
completeness accuracy validity uniqueness anomaly-alert backfill reprocessing
warehouse-load transformation ingestion connector extractor parser normalizer
classifier ranking relevance recall precision embedding vector similarity
clustering deduplicator tokenizer stemmer index-build shard-merge segment-merge
compaction-job garbage-collection heap allocation goroutine thread lock mutex
deadlock contention race condition semaphore pool connection-pool handshake
keepalive socket packet latency-budget jitter tail percentile-latency p99 p95
budget-owner cost-center chargeback-model forecast-model scenario sensitivity
variance actuals plan-vs-actual spend savings negotiation renewal-date term-sheet
amendment clause liability indemnity warranty termination notice-period auto-renew
sandbox-account test-card webhook-secret signing-key api-key rotation-schedule
scope-creep handoff-doc decision-record architecture-review design-doc rfc adr
prd brief-doc one-pager narrative memo-review exec-summary board-deck investor-update
okr kpi north-star metric-tree guardrail counter-metric leading lagging target-date
quarantine reconciliation-report settlement-file bank-statement remittance iban swift
ach sepa wire fx-rate hedging exposure collateral limit-check credit-check kyc aml
sanctions screening onboarding-check document-check identity-proof address-proof
consent-banner cookie tracking-pixel opt-out unsubscribe preference-center
suppression bounce deliverability spam dkim spf dmarc inbox template-engine
notification push sms in-app digest cadence throttling quiet-hours timezone locale
currency-format rounding precision-loss float decimal integer overflow underflow
encoding unicode normalization collation sorting-order pagination cursor offset-page
infinite-scroll search-box autocomplete typo synonym stemming facet filter-chip
saved-search alert-rule subscription-plan feature-matrix entitlement license seat-count
provisioning deprovisioning scim directory group-sync role-mapping permission-set
least-privilege break-glass audit-log access-review quarterly-review certification-cycle
penetration-test vulnerability cve patch-window scanner sbom supply-chain signature
attestation provenance reproducible hermetic cache-hit cache-miss warm cold
eviction ttl invalidation stampede thundering-herd hot-key sharding-key fan-out
fan-in scatter-gather map-reduce stream-processing windowing watermark late-data
`)

// phrases are collocations written as one vocabulary entry, so that the same two words
// follow each other often enough for phrase queries to find them.
var phrases = []string{
	"error budget", "on call", "release train", "customer churn", "data retention",
	"feature flag", "root cause", "rate limit", "access token", "payment method",
	"credit note", "support queue", "status page", "load test", "code review",
	"service level", "price increase", "sales pipeline", "board meeting", "risk review",
	"cost saving", "launch plan", "sign up", "dry run", "read replica",
	"write path", "hot path", "cold start", "open question", "next step",
	"action item", "due date", "time zone", "team lead", "product manager",
	"design review", "tax rate", "exchange rate", "bank transfer", "invoice number",
	"ledger entry", "balance sheet", "cash flow", "month end", "security incident",
	"password reset", "single sign", "user research", "usability test", "search quality",
	"query latency", "index size", "disk space", "memory usage", "build time",
	"test coverage", "flaky test", "merge request", "deploy window", "change freeze",
}

// firstNames and lastNames combine into the people of a brain, in a fixed order.
var firstNames = strings.Fields(`dana ravi priya tomas amara kenji lucia omar ingrid felix
nadia samuel mei jonas aisha victor elena hugo zara marcus yuki carlos fatima leo sofia
arjun greta malik chloe tariq nora pablo hana ivan leila oscar rosa emeka lena kofi`)

var lastNames = strings.Fields(`okafor menon sandoval berg nakamura rossi haddad lindqvist
moreau costa schmidt park adeyemi novak fischer silva kowalski ibrahim dubois tanaka
jensen alvarez chen mensah larsen romano ward castillo okoye petrov bauer nguyen
hoffman reyes kim walsh osei molina varga brandt`)

// repoNames name the repositories some projects own (repo:github.com/bench/NAME).
var repoNames = strings.Fields(`billing ledger checkout web-app mobile-app api-gateway
search-service data-pipeline auth-service notifications infra terraform-modules
design-system analytics payouts tax-engine pricing support-tools admin-console
event-bus scheduler importer exporter reporting warehouse ml-platform docs-site
status-page feature-flags config-service`)

// areas are the project folders; topics the concept folders (people is added apart).
var areas = strings.Fields(`platform billing growth data security mobile web infra
support finance research people-ops`)

var topics = strings.Fields(`architecture runbooks policies product customers vendors
processes decisions tools glossary`)

// tags are front matter labels; the first ones are the most used.
var tags = strings.Fields(`billing infra customer security release data q3 q4 api
incident roadmap migration performance ledger payments mobile web hiring compliance
finance design research ops oncall cost vendor legal support growth onboarding docs
testing platform network storage search analytics privacy audit tax pricing refunds
subscriptions dunning reporting okr planning retro architecture backend frontend ios
android accessibility localization experiments dashboards alerts observability
kubernetes database cache queue auth sso gdpr soc2 budget team process 2025 2026`)

// ticketPrefixes are the project keys of the tickets source.
var ticketPrefixes = strings.Fields(`OPS BILL WEB DATA SEC INFRA MOB GROW`)

// chatChannels are the channels of the chat source.
var chatChannels = strings.Fields(`general engineering billing incidents releases
data-team support design random platform security mobile`)

// ContentWords returns the content vocabulary, most common first, for other generators
// (the memory benchmark's memories).
func ContentWords() []string { return slices.Clone(contentWords) }
