package schemagen

func init() { domainSources = append(domainSources, domainsD) }

const domainsD = `
= charity | a charity: campaigns, donors, donations, pledges, volunteers, shifts, grants made and beneficiaries
entity campaign/campaigns 25 cmpgn
  name name gen title Clean Water;Warm Winter;Books for;Hope;Feed the;Heal;Bright Futures;Second Chance / Appeal;Drive;Fund;Initiative;Challenge
  launch_date date 2015 2024
  goal_amount money 5000 5000000
  cause_area cat Education;Health;Hunger;Housing;Environment;Disaster relief;Animals
entity donor/donors 380 dnr
  @person 1930 2004
  donor_type code I=Individual;F=Family foundation;C=Corporate;A=Anonymous
  first_gift_date? date 2000 2024
  gift_aid_eligible? flag
event donation/donations 800 dntn
  donor_id ref donor given by
  campaign_id? ref campaign given to
  donation_date date 2018 2024
  donation_amount money 1 250000
  payment_channel cat Online;Check;Cash;Stock;Payroll;Event
  recurring? flag
event pledge/pledges 200 plg
  donor_id ref donor made by
  campaign_id ref campaign for
  pledge_date date 2018 2024
  pledged_amount money 50 1000000
  fulfilled_share? measure percent 0 100
entity volunteer/volunteers 150 vol
  @person 1945 2008
  skills? cat Driving;Cooking;Tutoring;Construction;Fundraising;First aid;Translation
  background_checked flag
link volunteer_shift/volunteer_shifts 400 shft
  volunteer_id ref volunteer worked by
  campaign_id ref campaign for
  shift_date date 2022 2024
  hours_worked measure hours 1 12
entity beneficiary_org/beneficiary_orgs 40 benef
  name name gen title Hope;Safe;New;Open;Unity;Bright / Shelter;Food Bank;Clinic;Academy;House;Center
  city city
  registered_charity flag
event outgoing_grant/outgoing_grants 150 grnt
  campaign_id ref campaign funded by
  beneficiary_org_id ref beneficiary_org awarded to
  grant_date date 2018 2024
  grant_amount money 500 900000
distractor? newsletter_issue/newsletter_issues 30
  issue_date date 2020 2024
  open_rate measure percent 5 70
  headline text Thank you;Our impact;Winter appeal;Meet our volunteers;Annual report

= manufacturing | a factory: plants, production lines, machines, parts, bills of materials, work orders, quality inspections and downtime
entity plant/plants 6
  name name Plant Alpha;Plant Beta;Riverside Works;Northgate Factory;Eastfield Mill;Delta Works;Foundry One;Harbor Assembly
  @place
  opened_year count 1950 2020
entity production_line/production_lines 30 pl
  plant_id ref plant inside
  line_code name gen serial L
  shift_pattern code 1=One shift;2=Two shifts;3=Three shifts
  rated_units_per_hour count 10 900
entity machine/machines 120 mch
  production_line_id ref production_line installed on
  asset_tag name gen serial M
  machine_type cat CNC mill;Lathe;Press;Welder;Injection molder;Robot arm;Conveyor;Oven
  vendor name gen company
  install_date date 1995 2024
entity part/parts 200 prt
  part_number name gen serial PN
  description text Bracket;Housing;Gear;Shaft;Bolt;Panel;Bearing;Gasket;Valve;Spring;Circuit board;Cable
  unit_cost money 0.02 900
  make_or_buy code M=Made in house;B=Bought in
  part_weight_g? measure g 1 20000
link bill_of_material/bill_of_materials 400 bom
  assembly_part_id ref part an input of
  component_part_id ref part using
  quantity_per count 1 24
event work_order/work_orders 500 wo
  part_id ref part producing
  production_line_id ref production_line run on
  start_date date 2022 2024
  due_date after start_date 1 30
  quantity_ordered count 10 20000
  quantity_scrapped? count 0 400
  priority code 1=Urgent;2=High;3=Normal;4=Low
event quality_inspection/quality_inspections 500 qi
  work_order_id ref work_order checking
  inspection_date date 2022 2024
  sample_size count 5 200
  defects_found count 0 20
  inspector_name name gen person
  passed flag
event downtime_event/downtime_events 300 dt
  machine_id ref machine stopping
  downtime_date date 2022 2024
  minutes_down count 5 2000
  downtime_reason cat Breakdown;Changeover;Maintenance;Material shortage;Operator absent;Power failure
distractor? cafeteria_menu/cafeteria_menus 30
  menu_date date 2024 2024
  dish text Chili;Pasta;Salad bar;Stir fry;Sandwiches
  price money 3 12

= construction | a construction company: projects, clients, sites, subcontractors, workers, tasks, material deliveries, change orders and safety incidents
entity client_company/client_companies 40 clnt
  name name gen company
  industry cat Retail;Healthcare;Education;Government;Residential;Industrial;Hospitality
  credit_limit? money 50000 20000000
entity project/projects 60 proj
  project_name name gen title Riverside;Oak Hill;Harbor;Central;Maple;Skyline;Northgate;Lakeview / Tower;Plaza;Medical Center;School;Bridge;Apartments;Warehouse;Mall
  client_company_id ref client_company commissioned by
  @place
  contract_value money 200000 400000000
  start_date date 2015 2024
  planned_finish after start_date 90 1500
  project_phase code D=Design;P=Permitting;C=Construction;CL=Closeout;H=On hold
entity subcontractor/subcontractors 50 subk
  name name gen company
  trade cat Electrical;Plumbing;HVAC;Concrete;Steel;Roofing;Drywall;Excavation;Glazing
  bonded? flag
entity construction_worker/construction_workers 220 wrkr
  @person 1960 2004
  trade_skill cat Carpenter;Electrician;Plumber;Laborer;Ironworker;Operator;Mason
  union_local? count 1 900
  foreman_id? ref construction_worker supervised by
link project_assignment/project_assignments 400
  project_id ref project on
  construction_worker_id ref construction_worker staffed with
  assigned_date date 2015 2024
  hours_logged measure hours 8 3000
link subcontract/subcontracts 150 sbct
  project_id ref project part of
  subcontractor_id ref subcontractor awarded to
  subcontract_amount money 5000 40000000
  retainage_pct? measure percent 0 10
event material_delivery/material_deliveries 500 dlvry
  project_id ref project delivered to
  delivery_date date 2015 2024
  material cat Concrete;Rebar;Lumber;Drywall;Steel beams;Glass;Pipe;Wire;Asphalt
  tons_delivered measure t 0.1 400
  delivery_cost money 50 200000
event change_order/change_orders 150 co
  project_id ref project amending
  request_date date 2015 2024
  cost_impact money 100 5000000
  days_impact count 0 120
  approved flag
event? safety_incident/safety_incidents 80
  project_id ref project occurring on
  construction_worker_id? ref construction_worker involving
  incident_date date 2015 2024
  severity_level code 1=Near miss;2=First aid;3=Recordable;4=Lost time
distractor? equipment_rental_quote/equipment_rental_quotes 40
  quote_date date 2024 2024
  equipment text Crane;Excavator;Scissor lift;Generator;Compactor
  daily_rate money 100 9000

= issue_tracker | a software company's issue tracker: products, components, releases, users, issues, comments, labels and time logs
entity software_product/software_products 8 prd
  name name Atlas;Beacon;Comet;Drift;Ember;Flux;Granite;Helix;Ion;Juno
  repository_url? text github.com/org/atlas;github.com/org/beacon;gitlab.com/org/comet;github.com/org/drift
  open_source flag
entity component/components 40 cmp
  software_product_id ref software_product part of
  component_name cat API;UI;Database;Auth;Billing;Search;Notifications;Mobile;Build;Docs
  lead_user_id? ref app_user owned by
entity app_user/app_users 150 usr
  @person 1960 2003
  username name gen title dev;code;bug;sys;ops;data;web;byte / ninja;wizard;fox;hawk;smith;cat;owl;bear
  user_role code D=Developer;Q=QA engineer;PM=Product manager;S=Support;A=Admin
entity release/releases 40 rel
  software_product_id ref software_product of
  version_label name gen serial v
  release_date date 2019 2024
  lts? flag
entity issue/issues 600 iss
  component_id ref component filed against
  reporter_id ref app_user reported by
  assignee_id? ref app_user assigned to
  fixed_in_release_id? ref release fixed in
  summary text Crash on login;Slow search;Wrong total;Typo in docs;Timeout on export;Broken link;Memory leak;Null pointer;Dark mode glitch;Sync fails
  issue_type code B=Bug;F=Feature;T=Task;I=Improvement
  priority_level code P0=Blocker;P1=Critical;P2=Major;P3=Minor;P4=Trivial
  created_date date 2019 2024
  resolved_date? after created_date 0 300
  story_points? count 1 13
  duplicate_of_id? ref issue a duplicate of
event issue_comment/issue_comments 900 cmt
  issue_id ref issue on
  author_id ref app_user written by
  comment_date date 2019 2024
  word_count count 1 400
lookup label/labels 15
  name name regression;security;performance;ux;good first issue;needs triage;wontfix;backend;frontend;flaky test;documentation;accessibility;i18n;data loss;customer reported
  color_hex text #ff0000;#00ff00;#0000ff;#ffaa00;#888888
link issue_label/issue_labels 700
  issue_id ref issue tagged
  label_id ref label with
event? work_log/work_logs 700 wl
  issue_id ref issue spent on
  app_user_id ref app_user logged by
  log_date date 2019 2024
  hours_spent measure hours 0.25 12
distractor? ci_runner/ci_runners 20
  runner_name name gen serial runner-
  os_image text ubuntu-22.04;windows-2022;macos-14
  busy? flag

= space_missions | a space agency: launch sites, launch vehicles, missions, spacecraft, astronauts, crew assignments, experiments and telemetry
entity launch_site/launch_sites 8 site
  name name Cape Canaveral;Vandenberg;Wallops;Kodiak;Baikonur;Kourou;Tanegashima;Sriharikota;Jiuquan;Mahia
  country cat USA;Kazakhstan;French Guiana;Japan;India;China;New Zealand
  latitude_deg measure deg -45 65
entity launch_vehicle/launch_vehicles 15 lv
  name name Falcon 9;Falcon Heavy;Atlas V;Delta IV;Ariane 5;Ariane 6;Soyuz;Electron;H-IIA;PSLV;Long March 5;Vulcan;New Glenn;Antares;Vega
  manufacturer name gen company
  payload_to_leo_kg measure kg 300 64000
  reusable flag
entity mission/missions 120 msn
  mission_name name gen title Artemis;Voyager;Horizon;Pathfinder;Odyssey;Pioneer;Aurora;Helios;Kepler;Juno / I;II;III;IV;V;VI;VII;VIII;IX;X
  launch_site_id ref launch_site launched from
  launch_vehicle_id ref launch_vehicle flown on
  launch_date date 1990 2024
  mission_type code LEO=Low Earth orbit;GEO=Geostationary;LUN=Lunar;PLN=Planetary;ISS=Station resupply;DSP=Deep space
  mission_outcome code S=Success;PF=Partial failure;F=Failure
  mission_cost? money 5000000 2000000000
entity spacecraft/spacecraft 140 sc
  mission_id ref mission flown on
  craft_name name gen title Eagle;Falcon;Star;Orion;Phoenix;Atlas;Vega;Lyra / Probe;Lander;Orbiter;Capsule;Rover;Satellite
  dry_mass_kg measure kg 5 25000
  power_watts? measure W 10 30000
entity astronaut/astronauts 80 astr
  @person 1930 1995
  nationality cat American;Russian;Japanese;Canadian;French;German;Italian;Indian
  flight_hours measure hours 0 9000
  selection_year count 1978 2022
link crew_assignment/crew_assignments 150
  mission_id ref mission flying on
  astronaut_id ref astronaut of
  crew_position cat Commander;Pilot;Mission specialist;Payload specialist;Flight engineer
  eva_hours? measure hours 0 60
event experiment/experiments 250 exp
  mission_id ref mission carried on
  principal_scientist name gen person
  discipline cat Biology;Materials;Physics;Earth observation;Astronomy;Medicine
  start_date date 1990 2024
  data_gb? measure GB 0.1 900
event telemetry_pass/telemetry_passes 700 tlm
  spacecraft_id ref spacecraft received from
  pass_date date 1990 2024
  ground_station cat Goldstone;Madrid;Canberra;Svalbard;Wallops;Kiruna
  signal_dbm measure dBm -140 -60
  packets_lost count 0 500
distractor? visitor_center_event/visitor_center_events 30
  event_date date 2023 2024
  attendance count 20 3000

= winery | a winery: vineyards, blocks, grape varieties, harvest lots, wines, barrels, bottlings, distributors and shipments
entity vineyard/vineyards 10 vnyd
  name name Hillcrest Vineyard;Stone Creek;Oak Knoll;Silver Ridge;Willow Bend;Red Clay Estate;Sunset Slope;Misty Valley;Cedar Bench;Fox Run
  appellation cat Napa Valley;Sonoma Coast;Willamette Valley;Paso Robles;Columbia Valley;Finger Lakes
  acres_planted measure acres 5 600
  organic? flag
lookup grape_variety/grape_varieties 12
  name name Cabernet Sauvignon;Merlot;Pinot Noir;Chardonnay;Sauvignon Blanc;Syrah;Zinfandel;Riesling;Malbec;Grenache;Tempranillo;Viognier
  wine_color code R=Red;W=White;P=Rose
entity vineyard_block/vineyard_blocks 80 blk
  vineyard_id ref vineyard part of
  grape_variety_id ref grape_variety planted with
  block_code name gen serial B
  planted_year count 1970 2021
  vine_count count 500 20000
event harvest_lot/harvest_lots 300 lot
  vineyard_block_id ref vineyard_block picked from
  pick_date date 2015 2024
  tons_picked measure t 0.5 60
  brix measure deg 18 28
entity wine/wines 60
  label_name name gen title Reserve;Estate;Old Vine;Barrel Select;Hillside;Single Block / Cabernet;Pinot;Chardonnay;Red Blend;Syrah;Zinfandel;Riesling
  vintage count 2010 2023
  alcohol_pct measure percent 11 16
  bottle_price money 12 250
  cases_produced count 50 20000
link lot_blend/lot_blends 200
  wine_id ref wine blended into
  harvest_lot_id ref harvest_lot from
  blend_percent measure percent 1 100
entity barrel/barrels 200 brl
  wine_id ref wine aging
  cooperage name gen company
  oak_origin code FR=French oak;AM=American oak;HU=Hungarian oak
  fill_date date 2012 2024
event distributor_order/distributor_orders 400 dist_ord
  wine_id ref wine ordering
  distributor_id ref distributor placed by
  order_date date 2015 2024
  cases_ordered count 1 500
  order_value money 100 120000
entity distributor/distributors 25
  name name gen company
  state state
  exclusive? flag
distractor? tasting_room_event/tasting_room_events 40
  event_date date 2023 2024
  guests count 2 120
  theme text Barrel tasting;Harvest party;Wine club pickup;Jazz night

= weather_stations | a weather observation network: stations, instruments, observers, daily observations, storms, alerts and maintenance
entity weather_station/weather_stations 60 stn
  station_code name gen serial WS
  name name gen title Mount;Lake;Cape;Fort;Port;Glen / Observatory;Airfield;Ridge;Station;Point
  @place
  elevation_m measure m -20 3500
  established_year count 1880 2020
  automated flag
lookup instrument_model/instrument_models 10
  name name Vaisala WXT536;Campbell CS215;Davis Vantage;Lufft WS600;RM Young 05103;Hukseflux SR05;Apogee SP-110;Gill WindSonic;Thies Clima;OTT Pluvio
  measured_variable cat Temperature;Humidity;Wind;Precipitation;Pressure;Radiation
link installed_instrument/installed_instruments 200
  weather_station_id ref weather_station mounted at
  instrument_model_id ref instrument_model of model
  installed_date date 2000 2024
  calibrated_date? date 2020 2024
entity weather_observer/weather_observers 50 obsvr
  @person 1950 2000
  volunteer flag
event daily_observation/daily_observations 900 obs
  weather_station_id ref weather_station recorded at
  weather_observer_id? ref weather_observer recorded by
  observation_date date 2020 2024
  max_temp_c measure C -30 46
  min_temp_c measure C -45 30
  precipitation_mm? measure mm 0 180
  wind_gust_kmh? measure km/h 0 200
  quality_flag code G=Good;S=Suspect;E=Estimated;M=Missing data
entity storm/storms 40
  storm_name name Alberto;Beryl;Chris;Debby;Ernesto;Florence;Gordon;Helene;Isaac;Joyce;Kirk;Leslie;Milton;Nadine;Oscar;Patty;Rafael;Sara;Tony;Valerie;William
  storm_category code TS=Tropical storm;C1=Category 1;C2=Category 2;C3=Category 3;C4=Category 4;C5=Category 5;NT=Nor'easter
  first_seen date 2015 2024
  max_wind_kmh measure km/h 60 300
link storm_impact/storm_impacts 150
  storm_id ref storm affecting
  weather_station_id ref weather_station observing
  peak_gust_kmh measure km/h 40 300
  rainfall_mm measure mm 0 900
event? weather_alert/weather_alerts 200
  weather_station_id ref weather_station issued near
  issued_date date 2020 2024
  alert_level code W=Watch;WA=Warning;A=Advisory;E=Emergency
  hazard cat Heat;Frost;Flood;Wind;Snow;Thunderstorm
distractor? data_request/data_requests 60
  requester name gen company
  request_date date 2023 2024
  fee_charged? money 0 900

= seaport | a seaport: terminals, berths, shipping lines, vessels, port calls, containers, container moves and customs holds
entity terminal/terminals 6 trml
  name name North Terminal;South Terminal;Pier 9;Container Terminal A;Bulk Terminal;Cruise Terminal;Ro-Ro Terminal;Pier 4
  operator_company name gen company
  crane_count count 2 20
entity berth/berths 30 brth
  terminal_id ref terminal part of
  berth_code name gen serial BR
  depth_m measure m 8 20
  length_m measure m 150 450
entity shipping_line/shipping_lines 15 sl
  name name Maersk;MSC;CMA CGM;COSCO;Hapag-Lloyd;ONE;Evergreen;HMM;Yang Ming;ZIM;Wan Hai;PIL;Matson;Seaboard;Crowley
  alliance? cat 2M;Ocean Alliance;THE Alliance;Independent
entity vessel/vessels 90 vsl
  vessel_name name gen title Ever;Maersk;MSC;Cosco;Pacific;Atlantic;Northern;Star / Glory;Harmony;Pioneer;Spirit;Voyager;Trader;Express;Horizon
  shipping_line_id ref shipping_line operated by
  imo_number name gen serial IMO
  flag_state cat Panama;Liberia;Marshall Islands;Singapore;Malta;Bahamas;Greece
  teu_capacity count 500 24000
  build_year count 1995 2024
event port_call/port_calls 400 call
  vessel_id ref vessel made by
  berth_id ref berth docked at
  arrival_date date 2022 2024
  departure_date after arrival_date 0 6
  port_dues money 2000 400000
  delayed? flag
entity container/containers 700 cntr
  container_number name gen serial MSKU
  size_code code 20=Twenty-foot;40=Forty-foot;45=Forty-five-foot high cube
  reefer flag
  owner_line_id ref shipping_line owned by
link container_move/container_moves 900 mv
  port_call_id ref port_call during
  container_id ref container moving
  move_type code L=Load;D=Discharge;R=Restow
  gross_weight_kg measure kg 2000 32000
  hazardous? flag
event? customs_hold/customs_holds 120
  container_id ref container placed on
  hold_date date 2022 2024
  hold_reason cat Documentation;Inspection;Duties unpaid;Sanctions check;Agriculture
  released? flag
distractor? pilot_boat/pilot_boats 8
  boat_name name gen title Sea;Harbor;Bay / Pilot;Runner;Guide
  engine_hours count 100 30000

= esports | an esports circuit: organizations, rosters of pro players, tournaments, matches, map results, sponsors and prize payouts
entity esports_org/esports_orgs 30 org
  name name gen title Team;Cloud;Fnatic;Evil;Liquid;Shadow;Nova;Apex / Gaming;Esports;Squad;Legion;Five;Nine;Dynasty
  @place
  founded_year count 2000 2022
lookup esports_title/esports_titles 8
  name name League of Legends;Counter-Strike 2;Valorant;Dota 2;Overwatch 2;Rocket League;Rainbow Six;Apex Legends;Fortnite
  team_size count 1 6
entity pro_player/pro_players 240 pro
  handle name gen title s1;Zy;Fa;Ka;Ni;Ro;Sh;Xe / mple;wi;ker;zu;ra;ko;do;lo;nix
  @person 1990 2007
  esports_org_id? ref esports_org signed with
  esports_title_id ref esports_title competing in
  player_role? cat Carry;Support;Entry;IGL;Sniper;Jungle;Flex
  annual_salary? money 10000 2000000
entity tournament/tournaments 40 trn
  name name gen title Winter;Spring;Summer;Autumn;World;Masters;Pro;Grand / Cup;Championship;Invitational;Major;Clash;Series
  esports_title_id ref esports_title played in
  host_city city
  start_date date 2018 2024
  prize_pool money 10000 40000000
  online_only? flag
event esports_match/esports_matches 400 mtch
  tournament_id ref tournament part of
  team_a_id ref esports_org played by
  team_b_id ref esports_org against
  match_date date 2018 2024
  best_of code 1=Best of one;3=Best of three;5=Best of five
  viewers_peak? count 1000 5000000
entity map_result/map_results 800 mapres
  esports_match_id ref esports_match in
  map_name cat Inferno;Mirage;Ascent;Bind;Haven;Summoner's Rift;Dust II;Nuke;Split;Anubis
  rounds_a count 0 16
  rounds_b count 0 16
link sponsorship/sponsorships 80 spons
  esports_org_id ref esports_org backed by
  sponsor_id ref sponsor from
  annual_value money 5000 5000000
entity sponsor/sponsors 30
  name name gen company
  sector cat Energy drinks;Hardware;Telecom;Apparel;Betting;Automotive;Banking
entity? prize_payout/prize_payouts 200
  tournament_id ref tournament paid from
  esports_org_id ref esports_org paid to
  placement count 1 16
  payout_amount money 500 10000000
distractor? stream_overlay/stream_overlays 30
  overlay_name name gen serial OV
  theme text Dark;Neon;Minimal;Retro
`
